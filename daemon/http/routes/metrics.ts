// GET /api/system/metrics (any key): the host's CPU, memory, disks and network, and CPU and memory
// of the service containers in the key's projects. Polling clients share one cached collection.
// Metrics history (core/metrics-history.ts): a service's points (keys of its project), the host's and
// Berth's own footprint (keys over all projects), and the threshold alerts (a server setting).
import { z } from 'zod';
import type { MetricAlertSettings, MetricsRangeQuery } from '../../../shared/types.js';
import { route } from '../route-table.js';
import { singleQuery } from '../query.js';
import { parse } from '../validate.js';

const iso = z.string().max(40, 'must be an ISO 8601 time').optional();
const rangeQuery = z.strictObject({ from: iso, to: iso, step: z.enum(['10s', '1m', '10m']).optional() }) satisfies z.ZodType<MetricsRangeQuery, unknown>;
const percent = z.number().nullable().optional();
const alertsPatch = z.strictObject({
  cpuPercent: percent,
  memoryPercent: percent,
  forMinutes: z.number().int('must be a whole number of minutes').optional(),
  diskFullHours: z.number().nullable().optional(),
}) satisfies z.ZodType<Partial<MetricAlertSettings>, unknown>;

export const metricsRoutes = {
  ...route('system.metrics', { handler: ({ access }, { core }) => core.metrics.view(access) }),
  ...route('services.metrics', {
    handler: async ({ ctx, access, params }, { core }) => {
      ctx.set('Cache-Control', 'no-store');
      return core.metricsHistory.service(access, params.serviceId, parse(rangeQuery, singleQuery(ctx)));
    },
  }),
  ...route('system.metrics.history', {
    handler: async ({ ctx, access }, { core }) => {
      ctx.set('Cache-Control', 'no-store');
      return core.metricsHistory.host(access, parse(rangeQuery, singleQuery(ctx)));
    },
  }),
  ...route('system.footprint', { handler: ({ access }, { core }) => core.metricsHistory.footprint(access) }),
  ...route('system.metric-alerts', { handler: ({ access }, { core }) => core.metricAlerts.get(access) }),
  ...route('system.metric-alerts.patch', {
    body: alertsPatch,
    handler: ({ access, body }, { core }) => core.metricAlerts.patch(access, stripUndefined(body)),
  }),
};

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
