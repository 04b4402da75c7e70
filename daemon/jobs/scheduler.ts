// Jobs' schedules: one node-cron task per enabled job, in the job's time zone, armed at start from
// the store (jobs survive restarts) and re-armed when a job changes. A due task hands the job to
// the runner's scheduled path (`forbid` skips while a run is under way). `fire(jobId)` is that same
// path without waiting for the clock: the test hook, so suites need not wait a real minute for
// everything (one test still does, through node-cron).
import cron, { type ScheduledTask } from 'node-cron';
import type { JobRecord, JobSchedulePort } from '../core/ports/jobs-repo.js';
import type { Store } from '../core/ports/store.js';
import type { JobRunner } from './runner.js';

export class JobScheduler implements JobSchedulePort {
  private tasks = new Map<string, ScheduledTask>();
  private stopped = true;

  constructor(
    private readonly store: Store,
    private readonly runner: Pick<JobRunner, 'scheduled'>,
    private readonly log: (message: string, err?: unknown) => void,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    for (const job of await this.store.jobs.listAll()) this.arm(job);
  }

  arm(job: JobRecord): void {
    this.disarm(job.id);
    if (this.stopped || !job.enabled) return;
    try {
      const task = cron.schedule(job.schedule, () => this.fire(job.id), { timezone: job.timezone, name: `job-${job.id}` });
      this.tasks.set(job.id, task);
    } catch (err) {
      this.log(`arming the schedule of job ${job.name}`, err);
    }
  }

  disarm(jobId: string): void {
    const task = this.tasks.get(jobId);
    if (!task) return;
    this.tasks.delete(jobId);
    void Promise.resolve(task.destroy()).catch(() => undefined);
  }

  nextRun(jobId: string): Date | null {
    return this.tasks.get(jobId)?.getNextRun() ?? null;
  }

  /** The scheduled path for one job, now. Resolves once the run has started (or was skipped or refused). */
  async fire(jobId: string): Promise<void> {
    try {
      const job = await this.store.jobs.get(jobId);
      if (!job || !job.enabled) return;
      const service = await this.store.services.get(job.serviceId);
      if (!service) return;
      await this.runner.scheduled(job, service);
    } catch (err) {
      this.log(`the scheduled run of job ${jobId}`, err);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const id of [...this.tasks.keys()]) this.disarm(id);
  }
}
