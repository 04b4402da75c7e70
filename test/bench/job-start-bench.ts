// A scheduled job's start latency after its minute (issue 32: p99 < 1 s): JOBS jobs on `* * * * *`
// (2 per live image service, 2 services per project, within the runner's caps on runs at a time),
// armed by the daemon's real scheduler (node-cron), left to fire at MINUTES real minute boundaries.
// Each run's container start is read from the Engine's own `start` event (`docker events`, timeNano)
// and timed from the minute it was due; the run record's `startedAt` (written by the daemon when the
// run was handed to the runner, before the container is created) is printed beside it, so the
// scheduler's part and the container's part show apart. Part of `npm run bench:ops`; alone:
// `node dist/test/bench/job-start-bench.js`.
import Docker from 'dockerode';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { docker } from '../helpers/docker.js';
import { type OpsDaemon, percentiles, runAlone, verdict } from './ops-daemon.js';

// fewer runs due at once: BERTH_BENCH_JOB_PROJECTS=1 BERTH_BENCH_JOBS_PER_SERVICE=1 (2 jobs)
const PROJECTS = Number(process.env.BERTH_BENCH_JOB_PROJECTS ?? 2);
const SERVICES_PER_PROJECT = 2;
const JOBS_PER_SERVICE = Number(process.env.BERTH_BENCH_JOBS_PER_SERVICE ?? 2);
const MINUTES = 2;
const TARGET_P99_MS = 1000;
const MINUTE = 60_000;

interface EngineEvent {
  runId: string;
  action: 'create' | 'start';
  atMs: number;
}

/** The Engine's create and start events of Berth's job containers from now on. */
function watchJobContainers(): { seen: EngineEvent[]; stop: () => void } {
  const filters = ['type=container', 'event=create', 'event=start', 'label=dev.berth.job'].flatMap((f) => ['--filter', f]);
  const child = spawn('docker', ['events', ...filters, '--format', '{{json .}}'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const seen: EngineEvent[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const e = JSON.parse(line) as { Action: 'create' | 'start'; timeNano: number; Actor: { Attributes: Record<string, string> } };
    const runId = e.Actor.Attributes['dev.berth.job-run'];
    if (runId) seen.push({ runId, action: e.Action, atMs: e.timeNano / 1e6 });
  });
  return { seen, stop: () => child.kill() };
}

/**
 * The reference: as many containers as there are jobs, created and started all at once through the
 * Engine API on the same project networks (same image, same command), as a minute's runs are; the
 * time from the calls to each start's answer.
 */
async function engineStarts(projectIds: string[], perProject: number): Promise<number[]> {
  const api = new Docker();
  const made: Docker.Container[] = [];
  const t0 = performance.now();
  try {
    return await Promise.all(
      projectIds.flatMap((projectId) => {
        const network = docker('network', 'ls', '-q', '--filter', `label=dev.berth.project=${projectId}`).split('\n')[0]!;
        return Array.from({ length: perProject }, async () => {
          const c = await api.createContainer({ Image: 'berth-test/httpd:latest', Entrypoint: ['true'], HostConfig: { NetworkMode: network } });
          made.push(c);
          await c.start();
          return performance.now() - t0;
        });
      }),
    );
  } finally {
    await Promise.all(made.map((c) => c.remove({ force: true }).catch(() => undefined)));
  }
}

export async function benchJobStart(d: OpsDaemon): Promise<string> {
  const watch = watchJobContainers();
  try {
    const jobs: { serviceId: string; jobId: string }[] = [];
    const projectIds: string[] = [];
    for (let p = 0; p < PROJECTS; p++) {
      const { projectId, services } = await d.liveServices('jobs-bench', SERVICES_PER_PROJECT);
      projectIds.push(projectId);
      for (const s of services) {
        for (let j = 0; j < JOBS_PER_SERVICE; j++) {
          const { job } = await d.client.createJob(s.id, { name: `every-minute-${j}`, schedule: '* * * * *', command: ['true'], timeoutSeconds: 30 });
          jobs.push({ serviceId: s.id, jobId: job.id });
        }
      }
    }
    // the first boundary at least 3 s away (a job armed a moment before it may or may not catch it)
    const first = Math.ceil((Date.now() + 3_000) / MINUTE) * MINUTE;
    const due = Array.from({ length: MINUTES }, (_, i) => first + i * MINUTE);
    await new Promise((r) => setTimeout(r, due.at(-1)! + 15_000 - Date.now()));
    for (const j of jobs) await d.client.patchJob(j.serviceId, j.jobId, { enabled: false });
    const engine: number[] = [];
    const created: number[] = [];
    const record: number[] = [];
    let missing = 0;
    for (const j of jobs) {
      const runs = (await d.client.listJobRuns(j.serviceId, j.jobId)).runs.filter((r) => r.trigger === 'schedule');
      for (const minute of due) {
        const run = runs.find((r) => Math.floor(Date.parse(r.startedAt) / MINUTE) * MINUTE === minute);
        const at = (action: EngineEvent['action']) => run && watch.seen.find((s) => s.runId === run.id && s.action === action)?.atMs;
        const start = at('start');
        const create = at('create');
        if (!run || start === undefined || create === undefined) {
          missing++;
          continue;
        }
        engine.push(start - minute);
        created.push(create - minute);
        record.push(Date.parse(run.startedAt) - minute);
      }
    }
    const ref: number[] = [];
    for (let round = 0; round < MINUTES; round++) ref.push(...(await engineStarts(projectIds, SERVICES_PER_PROJECT * JOBS_PER_SERVICE)));
    const by = percentiles(ref);
    const e = percentiles(engine);
    const r = percentiles(record);
    const c = percentiles(created);
    const missed = missing > 0 ? `; ${missing} due runs never started` : '';
    return `job start latency (${jobs.length} jobs on * * * * *, ${MINUTES} minutes, ${engine.length} runs): container started p50 ${e.p50.toFixed(0)} ms p99 ${e.p99.toFixed(0)} ms ${verdict(missing === 0 && e.p99 < TARGET_P99_MS)} (target p99 < ${TARGET_P99_MS} ms); run recorded p50 ${r.p50.toFixed(0)} ms p99 ${r.p99.toFixed(0)} ms, container created p50 ${c.p50.toFixed(0)} ms p99 ${c.p99.toFixed(0)} ms; the Engine alone starting as many at once p50 ${by.p50.toFixed(0)} ms p99 ${by.p99.toFixed(0)} ms${missed}`;
  } finally {
    watch.stop();
  }
}

if (process.argv[1]?.endsWith('job-start-bench.js')) runAlone(benchJobStart);
