// Uptime checks of a service: list, create (201), get, patch (pause/resume: `enabled`), delete, run
// now (202), raw results (`from`/`to`), uptime buckets (`range` 24h|90d) and incidents. A target is
// one of the service's domains or its host port: there is no URL field to give.
import { z } from 'zod';
import type { CheckPatch, NewCheckInput } from '../../../shared/types/checks.js';
import { singleQuery } from '../query.js';
import { route } from '../route-table.js';
import { parse } from '../validate.js';

const target = z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('domain'), domainId: z.string().min(1).max(64) }), z.strictObject({ kind: z.literal('port') })], {
  error: "must be {kind: 'domain', domainId} or {kind: 'port'}",
});
const int = (min: number, max: number) => z.number({ error: 'must be a number' }).int('must be an integer').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

const newCheck = z.strictObject({
  name: z.string().min(1, 'must not be empty').max(63, 'must be at most 63 characters').optional(),
  target: target.optional(),
  path: z.string().max(1024, 'must be at most 1024 characters').optional(),
  expectedStatus: int(100, 599).nullable().optional(),
  keyword: z.string().max(200, 'must be at most 200 characters').nullable().optional(),
  // the configured floor (BERTH_CHECK_MIN_INTERVAL_SECONDS) is core's to check
  intervalSeconds: int(1, 3600).optional(),
  timeoutSeconds: int(1, 60).optional(),
  failuresBeforeIncident: int(1, 20).optional(),
  enabled: z.boolean({ error: 'must be true or false' }).optional(),
}) satisfies z.ZodType<NewCheckInput>;
const checkPatch = newCheck satisfies z.ZodType<CheckPatch>;

const timestamp = z
  .string()
  .max(40)
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time');
const resultsQuery = z.object({ from: timestamp.optional(), to: timestamp.optional() });
const uptimeQuery = z.object({ range: z.enum(['24h', '90d'], { error: 'must be 24h or 90d' }).optional() });

const iso = (s: string | undefined) => (s === undefined ? undefined : new Date(s).toISOString());

export const checkRoutes = {
  ...route('checks.list', { handler: async ({ access, params }, { core }) => ({ checks: await core.checks.list(access, params.serviceId) }) }),
  ...route('checks.create', {
    body: newCheck,
    handler: async ({ ctx, access, params, body }, { core }) => {
      const check = await core.checks.create(access, params.serviceId, body);
      ctx.status = 201;
      return { check };
    },
  }),
  ...route('checks.get', { handler: async ({ access, params }, { core }) => ({ check: await core.checks.get(access, params.serviceId, params.checkId) }) }),
  ...route('checks.patch', {
    body: checkPatch,
    handler: async ({ access, params, body }, { core }) => ({ check: await core.checks.patch(access, params.serviceId, params.checkId, body) }),
  }),
  ...route('checks.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.checks.delete(access, params.serviceId, params.checkId);
      return { ok: true };
    },
  }),
  ...route('checks.run', {
    handler: async ({ ctx, access, params }, { core }) => {
      const check = await core.checks.run(access, params.serviceId, params.checkId);
      ctx.status = 202;
      return { check };
    },
  }),
  ...route('checks.results', {
    handler: async ({ ctx, access, params }, { core }) => {
      const q = parse(resultsQuery, singleQuery(ctx));
      return { results: await core.checks.results(access, params.serviceId, params.checkId, { from: iso(q.from), to: iso(q.to) }) };
    },
  }),
  ...route('checks.uptime', {
    handler: async ({ ctx, access, params }, { core }) => {
      const q = parse(uptimeQuery, singleQuery(ctx));
      return { buckets: await core.checks.uptime(access, params.serviceId, params.checkId, q.range ?? '24h') };
    },
  }),
  ...route('checks.incidents', { handler: async ({ access, params }, { core }) => ({ incidents: await core.checks.incidents(access, params.serviceId, params.checkId) }) }),
};
