// deploy: queue a deployment, follow its build log live, end with the URL (exit 0) or with the
// built-in `local` explanation of the failure (exit 1).
import type { Command } from 'commander';
import { deploymentSucceeded } from '../../shared/statuses.js';
import type { DeploymentLogLine, Explanation, Service } from '../../shared/types.js';
import { parseDuration } from './durations.js';
import { CliError, EXIT } from './exit-codes.js';
import { followDeployment } from './follow-deployment.js';
import { openSession, type Session } from './session.js';

interface DeployOptions {
  branch?: string;
  force?: boolean;
  detach?: boolean;
  timeout?: number;
}

async function explainLocally(s: Session, deploymentId: string): Promise<Explanation | null> {
  try {
    return (await s.client.explainFailure(deploymentId, { providerId: 'local' })).explanation;
  } catch {
    return null; // a read key, or no log to explain: the failure itself is what matters
  }
}

export function registerDeployCommand(program: Command): void {
  program
    .command('deploy')
    .description('deploy a service and follow its build log; exit 0 when it runs, 1 when it fails or is aborted')
    .argument('<service>', 'service id, or name/slug in --project or the linked project')
    .option('--branch <branch>', 'deploy this branch once')
    .option('--force', 'rebuild even when nothing changed')
    .option('-d, --detach', 'queue the deployment and exit without following it')
    .option('--timeout <duration>', 'stop following after this long (90, 90s, 10m) and exit 1; the deployment goes on', parseDuration)
    .action(async (ref: string, o: DeployOptions, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const input: { branch?: string; force?: boolean } = {};
      if (o.branch) input.branch = o.branch;
      if (o.force) input.force = true;
      await deployAndFollow(s, service, input, o);
    });
}

/** Queues a deployment and follows it (unless `detach`): exits 0 when it runs, throws exit 1 when it fails, is aborted or times out. `berth scale` deploys through it too. */
export async function deployAndFollow(s: Session, service: Service, input: { branch?: string; force?: boolean }, o: { detach?: boolean; timeout?: number }): Promise<void> {
  const { out } = s;
  const { deployment } = await s.client.deploy(service.id, input);
  if (o.detach) {
    out.result({ type: 'queued', deployment }, () => deployment.id);
    return out.info(`queued deployment ${deployment.id} of ${service.slug}; follow it with: berth logs ${service.id} --build ${deployment.id} -f`);
  }
  if (out.json) out.event({ type: 'queued', deployment });
  else out.info(`deploying ${service.slug} (deployment ${deployment.id})`);

  const started = Date.now();
  let lines = 0;
  let lastLine = '';
  const draw = () => out.progress(`deploying ${service.slug} · ${Math.round((Date.now() - started) / 1000)}s · ${lines} lines${lastLine ? ` · ${lastLine}` : ''}`);
  const ticker = out.interactive ? setInterval(draw, 1000) : null;
  let end;
  try {
    end = await followDeployment(s, service.id, deployment.id, {
      deadline: o.timeout === undefined ? Infinity : started + o.timeout,
      onLine(l: DeploymentLogLine) {
        lines++;
        lastLine = l.line.trim();
        if (out.json) out.event({ type: 'log', ...l });
        else if (!out.quiet) out.line(l.line);
        draw();
      },
      onDrop: (detail) => (out.json ? out.event({ type: 'reconnect', detail }) : out.warn(`log stream: ${detail}`)),
    });
  } finally {
    if (ticker) clearInterval(ticker);
    out.clearProgress();
  }
  const seconds = Math.round((Date.now() - started) / 1000);

  if (end !== 'deleted' && end !== 'timeout' && deploymentSucceeded(end)) {
    const { service: now } = await s.client.overview(service.id);
    const url = now.primaryUrl; // https://<preferred domain>, else the host port
    out.result({ type: 'result', deploymentId: deployment.id, serviceId: service.id, status: end, url, seconds }, () => url);
    return out.success(`✓ ${service.slug} is ${end} (${seconds}s)`);
  }
  if (end === 'timeout') {
    out.result({ type: 'result', deploymentId: deployment.id, serviceId: service.id, status: 'timeout', seconds }, () => '');
    throw new CliError(`deployment ${deployment.id} did not finish within ${Math.round(o.timeout! / 1000)} s; it goes on (berth abort ${deployment.id} stops it)`, EXIT.failed);
  }
  const explanation = end === 'failed' ? await explainLocally(s, deployment.id) : null;
  out.result({ type: 'result', deploymentId: deployment.id, serviceId: service.id, status: end, seconds, explanation }, () => '');
  if (explanation && !out.json) {
    out.error(`deployment ${deployment.id} ${end}: ${explanation.summary}`);
    out.info(`  likely cause: ${explanation.likelyCause}\n  fix: ${explanation.suggestedFix}`);
  }
  throw new CliError(`deployment ${deployment.id} of ${service.slug} ${end === 'deleted' ? 'was deleted' : `ended ${end}`}`, EXIT.failed);
}
