// The client's calls for a service's scheduled jobs and their runs.
import type { Job, JobPatch, JobRun, NewJobInput } from '../types/jobs.js';
import type { RuntimeLogLine } from '../types/deployments.js';
import { VolumesClient } from './volumes.js';

export class JobsClient extends VolumesClient {
  listJobs(serviceId: string): Promise<{ jobs: Job[] }> {
    return this.api('jobs.list', { serviceId });
  }
  /** Answers 201 with the job. */
  createJob(serviceId: string, input: NewJobInput): Promise<{ job: Job }> {
    return this.api('jobs.create', { serviceId }, input);
  }
  patchJob(serviceId: string, jobId: string, patch: JobPatch): Promise<{ job: Job }> {
    return this.api('jobs.patch', { serviceId, jobId }, patch);
  }
  /** Deletes the job with its runs; a run under way is stopped. */
  deleteJob(serviceId: string, jobId: string): Promise<{ ok: true }> {
    return this.api('jobs.delete', { serviceId, jobId });
  }
  /** Runs it now (202): the run is `running`, or `failed` with its reason when it could not start (a cap, no live deployment). */
  runJob(serviceId: string, jobId: string): Promise<{ run: JobRun }> {
    return this.api('jobs.run', { serviceId, jobId });
  }
  /** Newest first: `limit` runs (default 20, at most 100), older than the run `before` or after skipping `offset`. */
  listJobRuns(serviceId: string, jobId: string, page: { limit?: number; before?: string; offset?: number } = {}): Promise<{ runs: JobRun[] }> {
    return this.api('jobs.runs', { serviceId, jobId }, undefined, page);
  }
  /** A run's output, oldest first: lines with id > `after`. */
  jobRunLogs(serviceId: string, jobId: string, runId: string, page: { after?: number; limit?: number } = {}): Promise<{ lines: RuntimeLogLine[] }> {
    return this.api('jobs.run-logs', { serviceId, jobId, runId }, undefined, page);
  }
}
