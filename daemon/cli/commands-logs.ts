// logs (runtime output or a build log, once or followed), abort, explain.
import type { Command } from 'commander';
import { ApiError } from '../../shared/client.js';
import { deploymentInProgress } from '../../shared/statuses.js';
import type { Deployment, DeploymentLogLine, RuntimeLogLine } from '../../shared/types.js';
import { parseCount, parseSince, sleep } from './durations.js';
import { CliError, EXIT, isNetworkError } from './exit-codes.js';
import { followDeployment } from './follow-deployment.js';
import { openSession, type Session } from './session.js';

interface LogsOptions {
  follow?: boolean;
  lines?: number;
  since?: Date;
  build?: string | true;
}

function newest(deployments: Deployment[]): Deployment | undefined {
  return [...deployments].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

function printer(s: Session) {
  return (l: RuntimeLogLine | DeploymentLogLine) => (s.out.json ? s.out.event(l) : s.out.line(l.line));
}

/** The last `n` lines at or after `since`. */
function select<T extends { createdAt: string }>(lines: T[], o: LogsOptions): T[] {
  const after = o.since ? lines.filter((l) => Date.parse(l.createdAt) >= o.since!.getTime()) : lines;
  return o.lines === undefined ? after : after.slice(Math.max(0, after.length - o.lines));
}

/**
 * Prints a build log page by page (the daemon answers at most 1,000 lines / 1 MiB at a time):
 * every line from the start, or with -n the last n read back from the tail; returns the id of the
 * newest line read.
 */
async function printBuildLog(s: Session, deploymentId: string, o: LogsOptions, print: (l: DeploymentLogLine) => void): Promise<number> {
  if (o.lines !== undefined) {
    const last: DeploymentLogLine[] = [];
    let page = await s.client.deploymentLogs(deploymentId, { tail: true, limit: Math.min(Math.max(o.lines, 1), 1000) });
    const newest = page.logs.at(-1)?.id ?? 0;
    for (;;) {
      last.unshift(...page.logs);
      if (last.length >= o.lines || page.prevCursor === null) break;
      page = await s.client.deploymentLogs(deploymentId, { before: page.prevCursor, limit: Math.min(o.lines - last.length, 1000) });
    }
    select(last, o).forEach(print);
    return newest;
  }
  let newest = 0;
  for await (const page of s.client.deploymentLogPages(deploymentId)) {
    select(page.logs, o).forEach(print);
    newest = page.logs.at(-1)?.id ?? newest;
  }
  return newest;
}

async function buildLogs(s: Session, serviceId: string, o: LogsOptions): Promise<void> {
  let deploymentId: string;
  if (typeof o.build === 'string') deploymentId = o.build;
  else {
    const latest = newest((await s.client.listDeployments(serviceId)).deployments);
    if (!latest) throw new CliError('the service has no deployments yet');
    deploymentId = latest.id;
  }
  const print = printer(s);
  const readUpTo = await printBuildLog(s, deploymentId, o, print);
  if (!o.follow) return;
  // the stream resumes after what was read above (shown, or cut by -n / --since)
  const end = await followDeployment(s, serviceId, deploymentId, {
    deadline: Infinity,
    afterLineId: readUpTo,
    onLine: print,
    onDrop: (d) => s.out.warn(`log stream: ${d}`),
  });
  s.out.info(`deployment ${deploymentId} ${end}`);
}

async function runtimeLogs(s: Session, serviceId: string, o: LogsOptions): Promise<void> {
  const print = printer(s);
  let lastEventId: string | undefined;
  let lastLineId = 0;
  let unreachableSince: number | null = null;
  for (;;) {
    const ac = new AbortController();
    let closed = false;
    try {
      for await (const ev of s.client.runtimeLogStream(serviceId, { lastEventId, signal: ac.signal })) {
        unreachableSince = null;
        if (ev.id !== undefined) lastEventId = ev.id;
        if (ev.event === 'snapshot') {
          const lines = JSON.parse(ev.data) as RuntimeLogLine[];
          // a resumed stream's snapshot is what was missed: all of it; the first one is a tail
          for (const l of lastLineId === 0 ? select(lines, o) : lines) if (l.id > lastLineId) print(l);
          lastLineId = Math.max(lastLineId, lines.at(-1)?.id ?? 0);
          if (!o.follow) {
            ac.abort();
            return;
          }
        } else if (ev.event === 'log') {
          const l = JSON.parse(ev.data) as RuntimeLogLine;
          if (l.id > lastLineId) {
            lastLineId = l.id;
            print(l);
          }
        } else if (ev.event === 'status' && (JSON.parse(ev.data) as { closed: boolean }).closed) {
          closed = true;
        }
      }
      if (closed) {
        s.out.info('the container is not running (no more output)');
        return;
      }
    } catch (err) {
      if (ac.signal.aborted && !o.follow) return;
      if (!isNetworkError(err)) throw err;
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince > 120_000) throw err;
    }
    s.out.warn('log stream dropped; reconnecting');
    await sleep(1000);
  }
}

export function registerLogCommands(program: Command): void {
  program
    .command('logs')
    .description("a service's output (its running container), or a build log with --build")
    .argument('<service>', 'service id, or name/slug in --project or the linked project')
    .option('-f, --follow', 'keep printing new lines (until the container or the build ends)')
    .option('-n, --lines <n>', 'only the last n lines', parseCount)
    .option('--since <when>', 'only lines since a duration ago (10m, 2h) or an ISO time', (v) => parseSince(v))
    .option('--build [deployment]', 'the build log of this deployment (default: the newest)')
    .action(async (ref: string, o: LogsOptions, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      if (o.build !== undefined) return buildLogs(s, service.id, o);
      return runtimeLogs(s, service.id, o);
    });

  program
    .command('abort')
    .description("abort a deployment (by id), or a service's deployment in progress")
    .argument('<target>', 'a deployment id, or a service')
    .action(async (target: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      let deploymentId = target;
      try {
        await s.client.abortDeployment(target);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
        const service = await s.service(target);
        const active = (await s.client.listDeployments(service.id)).deployments.find((d) => deploymentInProgress(d.status));
        if (!active) throw new CliError(`${service.slug} has no deployment in progress`, EXIT.failed);
        deploymentId = active.id;
        await s.client.abortDeployment(active.id);
      }
      s.out.result({ accepted: true, deploymentId }, () => '');
      s.out.success(`abort of ${deploymentId} accepted`);
    });

  program
    .command('explain')
    .description('why a deployment failed, from its log (the built-in `local` provider, or a configured AI provider)')
    .argument('<deployment>', 'deployment id')
    .option('--provider <id>', 'AI provider id (see the console settings)', 'local')
    .option('--model <model>', "the provider's model (default: its default model)")
    .action(async (deploymentId: string, o: { provider: string; model?: string }, cmd: Command) => {
      const s = openSession(cmd);
      const { explanation: e } = await s.client.explainFailure(deploymentId, { providerId: o.provider, ...(o.model ? { model: o.model } : {}) });
      s.out.result(e, () =>
        [`summary:       ${e.summary}`, `likely cause:  ${e.likelyCause}`, `suggested fix: ${e.suggestedFix}`, ...(e.commands.length ? ['commands:', ...e.commands.map((c) => `  ${c}`)] : [])].join(
          '\n',
        ),
      );
    });
}
