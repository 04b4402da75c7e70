// Scheduled jobs of a service: list, create (201), patch, delete, run now (202), the run history
// (newest first, paged by `limit` with `before` a run id or `offset`) and a run's output lines.
import { z } from 'zod';
import type { JobPatch, NewJobInput } from '../../../shared/types/jobs.js';
import { RUN_LOG_PAGE_MAX, RUNS_PAGE_MAX } from '../../core/jobs.js';
import { singleQuery } from '../query.js';
import { route } from '../route-table.js';
import { parse } from '../validate.js';

const newJob = z.strictObject({
  name: z.string().max(63, 'must be at most 63 characters'),
  schedule: z.string().max(200, 'must be at most 200 characters'),
  timezone: z.string().max(64, 'must be at most 64 characters').optional(),
  command: z.array(z.string({ error: 'every item must be a string' }), { error: 'must be an argv array of strings, never a shell string' }).max(64, 'must have at most 64 items'),
  timeoutSeconds: z.number().int('must be an integer').min(1, 'must be at least 1').max(86_400, 'must be at most 86400').optional(),
  enabled: z.boolean().optional(),
  concurrency: z.enum(['forbid', 'allow']).optional(),
}) satisfies z.ZodType<NewJobInput>;
const jobPatch = newJob.partial() satisfies z.ZodType<JobPatch>;

const runsQuery = z
  .object({
    limit: z.coerce.number().int('must be an integer').min(1).max(RUNS_PAGE_MAX, `must be at most ${RUNS_PAGE_MAX}`).optional(),
    offset: z.coerce.number().int('must be an integer').min(0).max(1_000_000).optional(),
    before: z.string().max(64).optional(),
  })
  .refine((q) => q.offset === undefined || q.before === undefined, 'give before or offset, not both');
const logsQuery = z.object({
  after: z.coerce.number().int('must be a line id (an integer)').min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int('must be an integer').min(1).max(RUN_LOG_PAGE_MAX, `must be at most ${RUN_LOG_PAGE_MAX}`).optional(),
});

export const jobRoutes = {
  ...route('jobs.list', { handler: async ({ access, params }, { core }) => ({ jobs: await core.jobs.list(access, params.serviceId) }) }),
  ...route('jobs.create', {
    body: newJob,
    handler: async ({ ctx, access, params, body }, { core }) => {
      const job = await core.jobs.create(access, params.serviceId, body);
      ctx.status = 201;
      return { job };
    },
  }),
  ...route('jobs.patch', {
    body: jobPatch,
    handler: async ({ access, params, body }, { core }) => ({ job: await core.jobs.patch(access, params.serviceId, params.jobId, body) }),
  }),
  ...route('jobs.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.jobs.delete(access, params.serviceId, params.jobId);
      return { ok: true };
    },
  }),
  ...route('jobs.run', {
    handler: async ({ ctx, access, params }, { core }) => {
      const run = await core.jobs.run(access, params.serviceId, params.jobId);
      ctx.status = 202;
      return { run };
    },
  }),
  ...route('jobs.runs', {
    handler: async ({ ctx, access, params }, { core }) => ({ runs: await core.jobs.runs(access, params.serviceId, params.jobId, parse(runsQuery, singleQuery(ctx))) }),
  }),
  ...route('jobs.run-logs', {
    handler: async ({ ctx, access, params }, { core }) => {
      const q = parse(logsQuery, singleQuery(ctx));
      return { lines: await core.jobs.runLogs(access, params.serviceId, params.jobId, params.runId, q.after, q.limit) };
    },
  }),
};
