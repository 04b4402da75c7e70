// jobs list|create|run|runs|logs|enable|disable|delete: a service's scheduled jobs (the service by
// name within the linked project, the job by name or id).
import type { Command } from 'commander';
import { jobRunInProgress } from '../../shared/statuses.js';
import type { Job, JobRun } from '../../shared/types.js';
import type { BerthClient } from '../../shared/client.js';
import { parseCount, sleep } from './durations.js';
import { CliError, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';
import { terminalSafe } from './terminal-text.js';

async function findJob(client: BerthClient, serviceId: string, ref: string): Promise<Job> {
  const { jobs } = await client.listJobs(serviceId);
  const job = jobs.find((j) => j.name === ref) ?? jobs.find((j) => j.id === ref);
  if (!job) throw new CliError(`no job named ${ref} on this service`);
  return job;
}

const when = (t: string | null) => t ?? '-';
const exitText = (r: JobRun) => (r.exitCode === null ? '-' : String(r.exitCode));

async function printLogs(client: BerthClient, serviceId: string, jobId: string, runId: string, line: (text: string) => void): Promise<void> {
  for (let after = 0; ; ) {
    const { lines } = await client.jobRunLogs(serviceId, jobId, runId, { after });
    for (const l of lines) line(terminalSafe(l.line));
    if (lines.length === 0) return;
    after = lines.at(-1)!.id;
  }
}

export function registerJobCommands(program: Command): void {
  const jobs = program.command('jobs').description("a service's scheduled jobs");

  jobs
    .command('list')
    .argument('<service>')
    .action(async (ref: string, _o: unknown, cmd: Command) => {
      const s = openSession(cmd);
      const { jobs: list } = await s.client.listJobs((await s.service(ref)).id);
      if (s.out.json) return list.forEach((j) => s.out.event(j));
      s.out.line(
        table(
          ['NAME', 'SCHEDULE', 'WHEN', 'ENABLED', 'NEXT RUN', 'LAST RUN', 'COMMAND'],
          list.map((j) => [
            j.name,
            j.schedule,
            j.description,
            j.enabled ? 'yes' : 'no',
            when(j.nextRunAt),
            j.lastRun ? `${j.lastRun.status} ${j.lastRun.startedAt}` : '-',
            terminalSafe(JSON.stringify(j.command), true),
          ]),
        ),
      );
    });

  jobs
    .command('create')
    .argument('<service>')
    .argument('<command...>', 'the command after --, as argv (no shell)')
    .requiredOption('--name <name>', 'lowercase letters, digits and dashes')
    .requiredOption('--schedule <cron>', 'five cron fields, e.g. "0 3 * * *"')
    .option('--timezone <zone>', 'an IANA time zone (default UTC)')
    .option('--timeout <seconds>', 'time limit of a run (default 3600)', parseCount)
    .option('--concurrency <mode>', 'forbid (default) or allow')
    .option('--disabled', 'create it disabled')
    .action(async (ref: string, command: string[], o: { name: string; schedule: string; timezone?: string; timeout?: number; concurrency?: string; disabled?: boolean }, cmd: Command) => {
      if (o.concurrency !== undefined && o.concurrency !== 'forbid' && o.concurrency !== 'allow') throw usageError('--concurrency must be forbid or allow');
      const s = openSession(cmd);
      const { job } = await s.client.createJob((await s.service(ref)).id, {
        name: o.name,
        schedule: o.schedule,
        command,
        ...(o.timezone ? { timezone: o.timezone } : {}),
        ...(o.timeout !== undefined ? { timeoutSeconds: o.timeout } : {}),
        ...(o.concurrency ? { concurrency: o.concurrency as 'forbid' | 'allow' } : {}),
        ...(o.disabled ? { enabled: false } : {}),
      });
      s.out.result(job, () => '');
      s.out.success(`job ${job.name} created: ${job.description}${job.nextRunAt ? `, next run ${job.nextRunAt}` : ''}`);
    });

  jobs
    .command('run')
    .argument('<service>')
    .argument('<job>')
    .option('--wait', 'wait for the run to end and print its output (exit code 1 when it failed)')
    .action(async (ref: string, jobRef: string, o: { wait?: boolean }, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const job = await findJob(s.client, service.id, jobRef);
      let { run } = await s.client.runJob(service.id, job.id);
      if (!o.wait) {
        s.out.result(run, () => '');
        if (run.status === 'failed') throw new CliError(`run ${run.id} could not start: ${run.error ?? 'unknown error'}`);
        return s.out.success(`run ${run.id} started; \`berth jobs logs ${service.slug} ${job.name} ${run.id}\` shows its output`);
      }
      s.out.info(`running ${job.name} (${run.id})...`);
      for (let delay = 250; jobRunInProgress(run.status); delay = Math.min(delay * 2, 2000)) {
        await sleep(delay);
        const found = (await s.client.listJobRuns(service.id, job.id, { limit: 100 })).runs.find((r) => r.id === run.id);
        if (!found) throw new CliError(`run ${run.id} disappeared (its job was deleted)`);
        run = found;
      }
      if (!s.out.json) await printLogs(s.client, service.id, job.id, run.id, (l) => s.out.line(l));
      s.out.result(run, () => '');
      if (run.status !== 'succeeded') throw new CliError(`run ${run.id} ${run.status}${run.exitCode !== null ? ` (exit code ${run.exitCode})` : ''}${run.error ? `: ${run.error}` : ''}`);
      s.out.success(`run ${run.id} succeeded`);
    });

  jobs
    .command('runs')
    .argument('<service>')
    .argument('<job>')
    .option('--limit <n>', 'how many (newest first, at most 100)', parseCount)
    .action(async (ref: string, jobRef: string, o: { limit?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const job = await findJob(s.client, service.id, jobRef);
      const { runs } = await s.client.listJobRuns(service.id, job.id, o.limit ? { limit: o.limit } : {});
      if (s.out.json) return runs.forEach((r) => s.out.event(r));
      s.out.line(
        table(
          ['RUN', 'STATUS', 'EXIT', 'TRIGGER', 'STARTED', 'FINISHED', 'ERROR'],
          runs.map((r) => [r.id, r.status, exitText(r), r.trigger, r.startedAt, when(r.finishedAt), terminalSafe(r.error ?? '', true)]),
        ),
      );
    });

  jobs
    .command('logs')
    .argument('<service>')
    .argument('<job>')
    .argument('[run]', 'a run id (default: the newest run)')
    .action(async (ref: string, jobRef: string, runRef: string | undefined, _o: unknown, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const job = await findJob(s.client, service.id, jobRef);
      const runId = runRef ?? (await s.client.listJobRuns(service.id, job.id, { limit: 1 })).runs[0]?.id;
      if (!runId) throw new CliError(`job ${job.name} has not run yet`);
      if (s.out.json) {
        for (let after = 0; ; ) {
          const { lines } = await s.client.jobRunLogs(service.id, job.id, runId, { after });
          if (lines.length === 0) return;
          lines.forEach((l) => s.out.event(l));
          after = lines.at(-1)!.id;
        }
      }
      await printLogs(s.client, service.id, job.id, runId, (l) => s.out.line(l));
    });

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    jobs
      .command(name)
      .argument('<service>')
      .argument('<job>')
      .action(async (ref: string, jobRef: string, _o: unknown, cmd: Command) => {
        const s = openSession(cmd);
        const service = await s.service(ref);
        const { job } = await s.client.patchJob(service.id, (await findJob(s.client, service.id, jobRef)).id, { enabled });
        s.out.result(job, () => '');
        s.out.success(`job ${job.name} ${enabled ? `enabled: next run ${job.nextRunAt ?? '-'}` : 'disabled'}`);
      });
  }

  jobs
    .command('delete')
    .argument('<service>')
    .argument('<job>')
    .action(async (ref: string, jobRef: string, _o: unknown, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const job = await findJob(s.client, service.id, jobRef);
      await s.client.deleteJob(service.id, job.id);
      s.out.result({ ok: true, id: job.id }, () => '');
      s.out.success(`job ${job.name} deleted`);
    });
}
