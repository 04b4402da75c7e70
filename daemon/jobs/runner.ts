// Runs scheduled jobs: each run is a one-off container (docker/one-off.ts) from the service's live
// image with what the service's containers get (deploy/service-container.ts: env, network, volumes,
// config files, limits). Its output goes to the run's log (bounded: core/job-rules.ts), its end to
// the run's status (core/job-run-states.ts), and both its start and end to the `job` event, which
// the notifier turns into a notice when the run failed or timed out. The runs under way are kept
// here (node-cron's noOverlap knows nothing of records): `forbid` skips a scheduled run while one
// runs, and the caps count them. Deleting a job or its service stops its runs; a clean daemon stop
// stops them and records why (a crash is handled at the next start: recover.ts).
import type Docker from 'dockerode';
import type { JobRunTrigger } from '../../shared/types/jobs.js';
import type { Clock } from '../core/clock.js';
import { liveDeployment } from '../core/deployment-states.js';
import { Conflict } from '../core/errors.js';
import type { EventFeed, EventSink } from '../core/events.js';
import { newId } from '../core/ids.js';
import { RUN_LOG_MAX_BYTES, RUN_LOG_MAX_LINES, RUNS_KEPT_PER_JOB, runCapReason } from '../core/job-rules.js';
import { recordRunStatus } from '../core/job-run-states.js';
import type { LimitPolicy } from '../core/limits.js';
import type { JobRecord, JobRunnerPort, JobRunPatch, JobRunRecord } from '../core/ports/jobs-repo.js';
import type { Store } from '../core/ports/store.js';
import type { ServiceRecord } from '../core/records.js';
import { serviceContainerBase } from '../deploy/service-container.js';
import type { Ownership } from '../docker/labels.js';
import { runOneOff } from '../docker/one-off.js';
import type { OutputStream } from '../docker/output-lines.js';

const LABEL_JOB = 'dev.berth.job';
export const LABEL_JOB_RUN = 'dev.berth.job-run';
export const DAEMON_STOPPED = 'the daemon stopped during the run';
const FLUSH_MS = 250;

interface UnderWay {
  jobId: string;
  serviceId: string;
  projectId: string;
  abort: AbortController;
  /** Why it was aborted, as the run's error says. */
  reason: string;
  done: Promise<void>;
}

export interface JobRunnerDeps {
  store: Store;
  docker: Docker;
  own: Ownership;
  limits: LimitPolicy;
  /** Where deployments' config files are written (deploy/service-files.ts): a run mounts the live deployment's. */
  filesDir: string;
  clock: Clock;
  events: EventSink & Pick<EventFeed, 'subscribe'>;
  log: (message: string, err?: unknown) => void;
}

export class JobRunner implements JobRunnerPort {
  private runs = new Map<string, UnderWay>();
  private unsubscribe: () => void = () => undefined;

  constructor(private readonly d: JobRunnerDeps) {}

  /** Listens for deleted services and projects: their runs stop. */
  watch(): void {
    this.unsubscribe = this.d.events.subscribe((e) => {
      if (e.type === 'service-change' && e.data.action === 'deleted') void this.stopWhere((r) => r.serviceId === e.data.serviceId, 'the service was deleted during the run');
      else if (e.type === 'project' && e.data.action === 'deleted') void this.stopWhere((r) => r.projectId === e.data.projectId, 'the project was deleted during the run');
    });
  }

  /** True while a run of the job is under way. */
  busy(jobId: string): boolean {
    return [...this.runs.values()].some((r) => r.jobId === jobId);
  }

  /** The scheduled path: with `forbid`, a run due while one runs is skipped (the daemon log says so, nothing is recorded). */
  async scheduled(job: JobRecord, service: ServiceRecord): Promise<JobRunRecord | null> {
    if (job.concurrency === 'forbid' && this.busy(job.id)) {
      this.d.log(`job ${job.name} of service ${service.name}: the scheduled run was skipped, the previous run is still under way (concurrency forbid)`);
      return null;
    }
    return this.start(job, service, 'schedule');
  }

  async start(job: JobRecord, service: ServiceRecord, trigger: JobRunTrigger): Promise<JobRunRecord> {
    if (trigger === 'manual' && job.concurrency === 'forbid' && this.busy(job.id)) throw new Conflict('a run of this job is under way and its concurrency is forbid', 'job_run_under_way');
    const under = [...this.runs.values()];
    const capped = runCapReason({ service: under.filter((r) => r.serviceId === service.id).length, project: under.filter((r) => r.projectId === service.projectId).length });
    const live = capped ? null : await liveDeployment(this.d.store, service.id);
    const refused = capped ?? (live?.imageTag ? null : 'the service has no live deployment');
    const now = this.d.clock.now();
    const run: JobRunRecord = { id: newId(), jobId: job.id, status: 'running', exitCode: null, trigger, startedAt: now, finishedAt: null, error: null };
    if (refused) {
      const failed: JobRunRecord = { ...run, status: 'failed', finishedAt: now, error: refused };
      await this.d.store.jobs.insertRun(failed);
      this.publish(service, failed);
      await this.prune(job.id);
      return failed;
    }
    await this.d.store.jobs.insertRun(run);
    this.publish(service, run);
    const entry: UnderWay = { jobId: job.id, serviceId: service.id, projectId: service.projectId, abort: new AbortController(), reason: DAEMON_STOPPED, done: Promise.resolve() };
    entry.done = this.execute(job, service, live!.imageTag!, run, entry).finally(() => this.runs.delete(run.id));
    this.runs.set(run.id, entry);
    return run;
  }

  async stopJob(jobId: string): Promise<void> {
    await this.stopWhere((r) => r.jobId === jobId, 'the job was deleted during the run');
  }

  /** A clean stop: runs under way end `failed` (the daemon stopped) and their containers go. */
  async shutdown(): Promise<void> {
    this.unsubscribe();
    await this.stopWhere(() => true, DAEMON_STOPPED);
  }

  /** Resolves once every run under way has ended (tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.runs.values()].map((r) => r.done));
  }

  private async stopWhere(match: (r: UnderWay) => boolean, reason: string): Promise<void> {
    const stopping = [...this.runs.values()].filter(match);
    for (const r of stopping) {
      r.reason = reason;
      r.abort.abort();
    }
    await Promise.all(stopping.map((r) => r.done));
  }

  private async execute(job: JobRecord, service: ServiceRecord, image: string, run: JobRunRecord, entry: UnderWay): Promise<void> {
    const output = new RunOutput(this.d.store, run.id, this.d.clock, (err) => this.d.log(`writing the output of run ${run.id}`, err));
    let end: { status: 'succeeded' | 'failed' | 'timed_out'; patch: JobRunPatch };
    try {
      const base = await serviceContainerBase(this.d, service);
      const result = await runOneOff(
        this.d.docker,
        {
          name: `berth-job-${run.id}`,
          image,
          // the command as given: its first item is the program, whatever the image's entrypoint
          entrypoint: [job.command[0]!],
          cmd: job.command.slice(1),
          env: base.env,
          labels: { ...this.d.own.labels({ projectId: service.projectId, serviceId: service.id }), [LABEL_JOB]: job.id, [LABEL_JOB_RUN]: run.id },
          network: base.network,
          overlay: base.overlay,
          volumes: base.volumes,
          binds: base.binds,
          limits: base.limits,
        },
        (line, stream) => output.push(line, stream),
        { timeoutMs: job.timeoutSeconds * 1000, signal: entry.abort.signal },
      );
      if (result.timedOut) end = { status: 'timed_out', patch: { error: `the run took longer than its time limit of ${job.timeoutSeconds} s and was stopped` } };
      else if (result.aborted) end = { status: 'failed', patch: { error: entry.reason } };
      else end = result.exitCode === 0 ? { status: 'succeeded', patch: { exitCode: 0 } } : { status: 'failed', patch: { exitCode: result.exitCode } };
    } catch (err) {
      end = { status: 'failed', patch: { error: entry.abort.signal.aborted ? entry.reason : `the run could not start: ${(err as Error).message}` } };
    }
    await output.close();
    try {
      const written = await recordRunStatus(this.d.store.jobs, run.id, end.status, { ...end.patch, finishedAt: this.d.clock.now() });
      if (written) this.publish(service, written);
      await this.prune(job.id);
    } catch (err) {
      this.d.log(`recording the end of run ${run.id}`, err);
    }
  }

  private async prune(jobId: string): Promise<void> {
    await this.d.store.jobs.pruneRuns(jobId, RUNS_KEPT_PER_JOB).catch((err: unknown) => this.d.log(`pruning the runs of job ${jobId}`, err));
  }

  private publish(service: ServiceRecord, run: JobRunRecord): void {
    this.d.events.publish({ type: 'job', projectId: service.projectId, data: { jobId: run.jobId, runId: run.id, serviceId: service.id, projectId: service.projectId, status: run.status } });
  }
}

/** A run's output on its way to the store: written in batches, capped in lines and bytes (one last line says what was dropped). */
class RunOutput {
  private pending: { line: string; stream: OutputStream; createdAt: string }[] = [];
  private lines = 0;
  private bytes = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private store: Store,
    private runId: string,
    private clock: Clock,
    private onError: (err: unknown) => void,
  ) {}

  push(line: string, stream: OutputStream): void {
    const size = Buffer.byteLength(line);
    if (this.lines >= RUN_LOG_MAX_LINES || this.bytes + size > RUN_LOG_MAX_BYTES) {
      this.dropped++;
      return;
    }
    this.lines++;
    this.bytes += size;
    this.pending.push({ line, stream, createdAt: this.clock.now() });
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  async close(): Promise<void> {
    if (this.dropped > 0)
      this.pending.push({
        line: `[berth] ${this.dropped} more lines were dropped: a run keeps at most ${RUN_LOG_MAX_LINES} lines and ${RUN_LOG_MAX_BYTES} bytes of output`,
        stream: 'stderr',
        createdAt: this.clock.now(),
      });
    this.flush();
    await this.writing;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.writing = this.writing.then(() => this.store.jobs.appendLogs(this.runId, batch)).catch(this.onError);
  }
}
