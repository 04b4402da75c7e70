// Scheduled jobs of a service: a command (argv) run on a cron schedule in a new container from the
// service's live image, with its env, network, volumes and limits. What each run status means is in
// ../statuses.ts.

import type { Timestamp } from './common.js';

/** `forbid`: a run due while one is still running is skipped (and says so); `allow`: it starts anyway, up to the per-service cap. */
export type JobConcurrency = 'forbid' | 'allow';

export type JobRunStatus = 'running' | 'succeeded' | 'failed' | 'timed_out';

export type JobRunTrigger = 'schedule' | 'manual';

export interface Job {
  id: string;
  serviceId: string;
  name: string;
  /** Five cron fields (minute hour day-of-month month day-of-week). */
  schedule: string;
  /** An IANA time zone, `UTC` by default. */
  timezone: string;
  command: string[];
  timeoutSeconds: number;
  enabled: boolean;
  concurrency: JobConcurrency;
  /** The schedule in words, with its time zone: "At 03:00, every day (UTC)". */
  description: string;
  /** When it runs next; null while disabled. */
  nextRunAt: Timestamp | null;
  /** The newest run, or null before the first. */
  lastRun: JobRun | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface JobRun {
  id: string;
  jobId: string;
  status: JobRunStatus;
  /** The command's exit code; null while running, or when it never ran to an exit (timed out, failed to start, daemon stopped). */
  exitCode: number | null;
  trigger: JobRunTrigger;
  startedAt: Timestamp;
  finishedAt: Timestamp | null;
  /** Why it failed without an exit code of its own (a timeout, a start failure, the daemon stopping); null otherwise. */
  error: string | null;
}

/** POST /api/services/:serviceId/jobs */
export interface NewJobInput {
  name: string;
  schedule: string;
  /** Default "UTC". */
  timezone?: string;
  command: string[];
  /** Default 3600. */
  timeoutSeconds?: number;
  /** Default true. */
  enabled?: boolean;
  /** Default "forbid". */
  concurrency?: JobConcurrency;
}

/** PATCH /api/services/:serviceId/jobs/:jobId: any field of a new job. */
export type JobPatch = Partial<NewJobInput>;
