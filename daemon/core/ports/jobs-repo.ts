// Scheduled jobs and their runs as core sees them: the records, the repository (store/jobs-repo.ts)
// and the ports to the runner and the scheduler (daemon/jobs/). What each run status means is in
// shared/statuses.ts; which may follow which is core/job-run-states.ts.
import type { JobConcurrency, JobRunStatus, JobRunTrigger } from '../../../shared/types/jobs.js';
import type { LogLineRecord, ServiceRecord } from '../records.js';

export interface JobRecord {
  id: string;
  serviceId: string;
  name: string;
  schedule: string;
  timezone: string;
  command: string[];
  timeoutSeconds: number;
  enabled: boolean;
  concurrency: JobConcurrency;
  createdAt: string;
  updatedAt: string;
}

export interface JobRunRecord {
  id: string;
  jobId: string;
  status: JobRunStatus;
  exitCode: number | null;
  trigger: JobRunTrigger;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
}

export type JobRunPatch = Partial<Pick<JobRunRecord, 'exitCode' | 'finishedAt' | 'error'>>;

/** One output line of a run as stored (the deployment log line shape). */
export type JobRunLogLine = LogLineRecord;

export interface JobsRepo {
  listByService(serviceId: string): Promise<JobRecord[]>;
  listAll(): Promise<JobRecord[]>;
  get(id: string): Promise<JobRecord | null>;
  insert(job: JobRecord): Promise<void>;
  update(id: string, patch: Partial<Omit<JobRecord, 'id' | 'serviceId' | 'createdAt'>>): Promise<void>;
  delete(id: string): Promise<boolean>;
  insertRun(run: JobRunRecord): Promise<void>;
  getRun(id: string): Promise<JobRunRecord | null>;
  /** Newest first: at most `limit` runs of the job, skipping `offset`, or older than the run `before` when given. */
  listRuns(jobId: string, page: { limit: number; offset: number; before?: string }): Promise<JobRunRecord[]>;
  /** The newest run of each given job. */
  lastRuns(jobIds: readonly string[]): Promise<Map<string, JobRunRecord>>;
  /** Every run in a status (start-up recovery). */
  runsByStatus(status: JobRunStatus): Promise<JobRunRecord[]>;
  /** Sets the status (and `patch`) only while the stored status is one of `from`; false when it was not. */
  setRunStatus(id: string, to: JobRunStatus, from: readonly JobRunStatus[], patch: JobRunPatch): Promise<boolean>;
  /** Keeps the newest `keep` runs of the job (and their logs); returns how many went. */
  pruneRuns(jobId: string, keep: number): Promise<number>;
  appendLogs(runId: string, lines: readonly { line: string; stream: LogLineRecord['stream']; createdAt: string }[]): Promise<void>;
  /** A run's lines with id > afterId, oldest first. */
  logs(runId: string, afterId: number, limit: number): Promise<JobRunLogLine[]>;
}

/** Runs a job's command (daemon/jobs/runner.ts). */
export interface JobRunnerPort {
  /** Starts a run in the background; answers with its `running` record, or a `failed` record when it could not start (a cap, no live deployment). */
  start(job: JobRecord, service: ServiceRecord, trigger: JobRunRecord['trigger']): Promise<JobRunRecord>;
  /** Stops the job's runs under way (the job is being deleted). */
  stopJob(jobId: string): Promise<void>;
}

/** Cron expressions and time zones (daemon/jobs/cron.ts, over node-cron and cronstrue). */
export interface CronPort {
  valid(expression: string): boolean;
  validTimezone(zone: string): boolean;
  describe(expression: string, timezone: string): string;
}

/** Arms and disarms jobs' schedules (daemon/jobs/scheduler.ts). */
export interface JobSchedulePort {
  /** (Re)arms the job when enabled, disarms it otherwise. */
  arm(job: JobRecord): void;
  disarm(jobId: string): void;
  /** When the armed job runs next; null when not armed. */
  nextRun(jobId: string): Date | null;
}
