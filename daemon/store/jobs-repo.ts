// Scheduled jobs, their runs and the runs' output lines (bounded per run by the runner: see
// core/job-rules.ts). Not behind the read cache: runs change while they run.
import type { Knex } from 'knex';
import type { JobRecord, JobRunRecord, JobsRepo } from '../core/ports/jobs-repo.js';

type JobRow = {
  id: string;
  service_id: string;
  name: string;
  schedule: string;
  timezone: string;
  command: string;
  timeout_seconds: number;
  enabled: number | boolean;
  concurrency: JobRecord['concurrency'];
  created_at: string;
  updated_at: string;
};
type RunRow = { id: string; job_id: string; status: JobRunRecord['status']; exit_code: number | null; trigger: JobRunRecord['trigger']; started_at: string; finished_at: string | null; error: string | null };

const toJob = (r: JobRow): JobRecord => ({
  id: r.id,
  serviceId: r.service_id,
  name: r.name,
  schedule: r.schedule,
  timezone: r.timezone,
  command: JSON.parse(r.command) as string[],
  timeoutSeconds: r.timeout_seconds,
  enabled: Boolean(r.enabled),
  concurrency: r.concurrency,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
const toRun = (r: RunRow): JobRunRecord => ({
  id: r.id,
  jobId: r.job_id,
  status: r.status,
  exitCode: r.exit_code,
  trigger: r.trigger,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  error: r.error,
});
const RUN_COLUMNS = ['id', 'job_id', 'status', 'exit_code', 'trigger', 'started_at', 'finished_at', 'error'];

function jobColumns(p: Partial<JobRecord>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (p.name !== undefined) out.name = p.name;
  if (p.schedule !== undefined) out.schedule = p.schedule;
  if (p.timezone !== undefined) out.timezone = p.timezone;
  if (p.command !== undefined) out.command = JSON.stringify(p.command);
  if (p.timeoutSeconds !== undefined) out.timeout_seconds = p.timeoutSeconds;
  if (p.enabled !== undefined) out.enabled = p.enabled;
  if (p.concurrency !== undefined) out.concurrency = p.concurrency;
  if (p.updatedAt !== undefined) out.updated_at = p.updatedAt;
  return out;
}

function runColumns(p: Partial<JobRunRecord>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (p.exitCode !== undefined) out.exit_code = p.exitCode;
  if (p.finishedAt !== undefined) out.finished_at = p.finishedAt;
  if (p.error !== undefined) out.error = p.error;
  return out;
}

export function jobsRepo(knex: Knex): JobsRepo {
  return {
    async listByService(serviceId) {
      return ((await knex('jobs').where({ service_id: serviceId }).orderBy('name')) as JobRow[]).map(toJob);
    },
    async listAll() {
      return ((await knex('jobs').select('*')) as JobRow[]).map(toJob);
    },
    async get(id) {
      const row = (await knex('jobs').where({ id }).first()) as JobRow | undefined;
      return row ? toJob(row) : null;
    },
    async insert(j) {
      await knex('jobs').insert({ id: j.id, service_id: j.serviceId, ...jobColumns(j), created_at: j.createdAt });
    },
    async update(id, patch) {
      const cols = jobColumns(patch);
      if (Object.keys(cols).length > 0) await knex('jobs').where({ id }).update(cols);
    },
    async delete(id) {
      return (await knex('jobs').where({ id }).delete()) > 0;
    },
    async insertRun(r) {
      const row = (await knex('job_runs').where({ job_id: r.jobId }).max({ m: 'seq' }).first()) as { m: number | null } | undefined;
      await knex('job_runs').insert({ id: r.id, job_id: r.jobId, status: r.status, trigger: r.trigger, started_at: r.startedAt, seq: (row?.m ?? 0) + 1, ...runColumns(r) });
    },
    async getRun(id) {
      const row = (await knex('job_runs').select(RUN_COLUMNS).where({ id }).first()) as RunRow | undefined;
      return row ? toRun(row) : null;
    },
    async listRuns(jobId, page) {
      const q = knex('job_runs').select(RUN_COLUMNS).where({ job_id: jobId });
      if (page.before !== undefined) q.andWhere('seq', '<', knex('job_runs').select('seq').where({ id: page.before }));
      return ((await q.orderBy('seq', 'desc').limit(page.limit).offset(page.offset)) as RunRow[]).map(toRun);
    },
    async lastRuns(jobIds) {
      const out = new Map<string, JobRunRecord>();
      if (jobIds.length === 0) return out;
      const rows = (await knex('job_runs as r')
        .select(RUN_COLUMNS.map((c) => `r.${c}`))
        .whereIn('r.job_id', [...jobIds])
        .andWhereRaw('r.seq = (SELECT max(seq) FROM job_runs WHERE job_id = r.job_id)')) as RunRow[];
      for (const r of rows) out.set(r.job_id, toRun(r));
      return out;
    },
    async runsByStatus(status) {
      return ((await knex('job_runs').select(RUN_COLUMNS).where({ status })) as RunRow[]).map(toRun);
    },
    async setRunStatus(id, to, from, patch) {
      return (await knex('job_runs').where({ id }).whereIn('status', [...from]).update({ status: to, ...runColumns(patch) })) > 0;
    },
    async pruneRuns(jobId, keep) {
      return knex('job_runs')
        .where({ job_id: jobId })
        .andWhere('seq', '<=', knex.raw('(SELECT seq FROM job_runs WHERE job_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)', [jobId, keep]))
        .delete();
    },
    async appendLogs(runId, lines) {
      for (let i = 0; i < lines.length; i += 150) {
        const chunk = lines.slice(i, i + 150).map((l) => ({ run_id: runId, line: l.line, stream: l.stream, created_at: l.createdAt }));
        await knex('job_run_logs')
          .insert(chunk)
          .catch((err: unknown) => {
            // the run was deleted meanwhile (its job or service went): its lines have nowhere to go
            if (!/FOREIGN KEY/i.test((err as Error).message)) throw err;
          });
      }
    },
    async logs(runId, afterId, limit) {
      const rows = (await knex('job_run_logs').select('id', 'line', 'stream', 'created_at').where({ run_id: runId }).andWhere('id', '>', afterId).orderBy('id').limit(limit)) as {
        id: number;
        line: string;
        stream: 'stdout' | 'stderr';
        created_at: string;
      }[];
      return rows.map((r) => ({ id: r.id, line: r.line, stream: r.stream, createdAt: r.created_at }));
    },
  };
}
