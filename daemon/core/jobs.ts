// The scheduled-jobs use cases: list, create, patch, delete, run now, the run history and a run's
// output. The key and the service are checked here (a non-database service the key can see; changes
// need a write key); the runner and the scheduler (daemon/jobs/) do the work behind ports.
import type { Job, JobPatch, JobRun, NewJobInput } from '../../shared/types/jobs.js';
import { visibleService, type Access } from './access.js';
import type { Clock } from './clock.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import type { EventSink } from './events.js';
import { newId } from './ids.js';
import { jobFields, MAX_JOBS_PER_SERVICE } from './job-rules.js';
import type { CronPort, JobRecord, JobRunLogLine, JobRunnerPort, JobRunRecord, JobSchedulePort, JobsRepo } from './ports/jobs-repo.js';
import type { Store } from './ports/store.js';
import type { ServiceRecord } from './records.js';
import type { ChangeAction } from '../../shared/events.js';

export interface JobsDeps {
  store: Store;
  clock: Clock;
  events: EventSink;
  runner: JobRunnerPort;
  schedule: JobSchedulePort;
  cron: CronPort;
}

const RUNS_PAGE_DEFAULT = 20;
export const RUNS_PAGE_MAX = 100;
export const RUN_LOG_PAGE_MAX = 5000;

function runView(r: JobRunRecord): JobRun {
  return { id: r.id, jobId: r.jobId, status: r.status, exitCode: r.exitCode, trigger: r.trigger, startedAt: r.startedAt, finishedAt: r.finishedAt, error: r.error };
}

export class Jobs {
  constructor(private readonly d: JobsDeps) {}

  private get repo(): JobsRepo {
    return this.d.store.jobs;
  }

  async list(access: Access, serviceId: string): Promise<Job[]> {
    const service = await visibleService(this.d.store, access, serviceId);
    const jobs = await this.repo.listByService(service.id);
    const last = await this.repo.lastRuns(jobs.map((j) => j.id));
    return jobs.map((j) => this.view(j, last.get(j.id) ?? null));
  }

  async create(access: Access, serviceId: string, input: NewJobInput): Promise<Job> {
    access.requireWrite();
    const service = await this.jobService(access, serviceId);
    const fields = jobFields(this.d.cron, input);
    const existing = await this.repo.listByService(service.id);
    if (existing.length >= MAX_JOBS_PER_SERVICE) throw new InvalidInput(`the cap of ${MAX_JOBS_PER_SERVICE} jobs per service was reached`, 'too_many_jobs');
    if (existing.some((j) => j.name === fields.name)) throw new Conflict(`this service already has a job named ${fields.name}`, 'job_name_taken');
    const now = this.d.clock.now();
    const job: JobRecord = { id: newId(), serviceId: service.id, ...fields, createdAt: now, updatedAt: now };
    try {
      await this.repo.insert(job);
    } catch (err) {
      if (this.d.store.isUniqueViolation(err)) throw new Conflict(`this service already has a job named ${fields.name}`, 'job_name_taken');
      throw err;
    }
    this.d.schedule.arm(job);
    this.changed(service, job, 'created');
    return this.view(job, null);
  }

  async patch(access: Access, serviceId: string, jobId: string, patch: JobPatch): Promise<Job> {
    access.requireWrite();
    const { service, job } = await this.find(access, serviceId, jobId);
    const fields = jobFields(this.d.cron, { ...job, ...patch });
    if (fields.name !== job.name && (await this.repo.listByService(service.id)).some((j) => j.name === fields.name))
      throw new Conflict(`this service already has a job named ${fields.name}`, 'job_name_taken');
    const next: JobRecord = { ...job, ...fields, updatedAt: this.d.clock.now() };
    try {
      await this.repo.update(job.id, { ...fields, updatedAt: next.updatedAt });
    } catch (err) {
      if (this.d.store.isUniqueViolation(err)) throw new Conflict(`this service already has a job named ${fields.name}`, 'job_name_taken');
      throw err;
    }
    this.d.schedule.arm(next);
    this.changed(service, next, 'updated');
    return this.view(next, (await this.repo.lastRuns([job.id])).get(job.id) ?? null);
  }

  /** Deletes the job, its runs and their logs; a run under way is stopped. */
  async delete(access: Access, serviceId: string, jobId: string): Promise<void> {
    access.requireWrite();
    const { service, job } = await this.find(access, serviceId, jobId);
    this.d.schedule.disarm(job.id);
    await this.d.runner.stopJob(job.id);
    await this.repo.delete(job.id);
    this.changed(service, job, 'deleted');
  }

  /** Runs the job now: answers with the run (`running`, or `failed` with the reason when it could not start). */
  async run(access: Access, serviceId: string, jobId: string): Promise<JobRun> {
    access.requireWrite();
    const { service, job } = await this.find(access, serviceId, jobId);
    return runView(await this.d.runner.start(job, service, 'manual'));
  }

  /** Newest first: `limit` runs after skipping `offset`, or the ones older than the run `before`. */
  async runs(access: Access, serviceId: string, jobId: string, page: { limit?: number; offset?: number; before?: string }): Promise<JobRun[]> {
    const { job } = await this.find(access, serviceId, jobId);
    if (page.before !== undefined) {
      const anchor = await this.repo.getRun(page.before);
      if (!anchor || anchor.jobId !== job.id) throw new NotFound('run not found');
    }
    const runs = await this.repo.listRuns(job.id, { limit: page.limit ?? RUNS_PAGE_DEFAULT, offset: page.offset ?? 0, before: page.before });
    return runs.map(runView);
  }

  async runLogs(access: Access, serviceId: string, jobId: string, runId: string, afterId = 0, limit = RUN_LOG_PAGE_MAX): Promise<JobRunLogLine[]> {
    const { job } = await this.find(access, serviceId, jobId);
    const run = await this.repo.getRun(runId);
    if (!run || run.jobId !== job.id) throw new NotFound('run not found');
    return this.repo.logs(run.id, afterId, limit);
  }

  private async find(access: Access, serviceId: string, jobId: string): Promise<{ service: ServiceRecord; job: JobRecord }> {
    const service = await visibleService(this.d.store, access, serviceId);
    const job = await this.repo.get(jobId);
    if (!job || job.serviceId !== service.id) throw new NotFound('job not found');
    return { service, job };
  }

  /** Jobs run from a service's live image: a database service has none to run them from. */
  private async jobService(access: Access, serviceId: string): Promise<ServiceRecord> {
    const service = await visibleService(this.d.store, access, serviceId);
    if (service.kind === 'database') throw new InvalidInput("jobs run in a container from a service's live image; a database service cannot have jobs", 'not_for_databases');
    return service;
  }

  private changed(service: ServiceRecord, job: JobRecord, action: ChangeAction): void {
    this.d.events.publish({ type: 'job-change', projectId: service.projectId, data: { jobId: job.id, serviceId: service.id, projectId: service.projectId, name: job.name, action } });
  }

  private view(j: JobRecord, lastRun: JobRunRecord | null): Job {
    return {
      id: j.id,
      serviceId: j.serviceId,
      name: j.name,
      schedule: j.schedule,
      timezone: j.timezone,
      command: j.command,
      timeoutSeconds: j.timeoutSeconds,
      enabled: j.enabled,
      concurrency: j.concurrency,
      description: this.d.cron.describe(j.schedule, j.timezone),
      nextRunAt: j.enabled ? (this.d.schedule.nextRun(j.id)?.toISOString() ?? null) : null,
      lastRun: lastRun ? runView(lastRun) : null,
      createdAt: j.createdAt,
      updatedAt: j.updatedAt,
    };
  }
}
