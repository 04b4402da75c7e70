// GET /api/system/metrics (any key): the host's CPU, memory, disks and network, and CPU and memory
// of the service containers in the key's projects. Polling clients share one cached collection.
import type Router from '@koa/router';
import { viewFor, type MetricsCollector } from '../../metrics/collector.js';
import { accessOf } from '../auth.js';

export function metricsRoutes(router: Router, collector: MetricsCollector): void {
  router.get('/api/system/metrics', async (ctx) => {
    const access = accessOf(ctx);
    ctx.body = viewFor(await collector.snapshot(), access);
  });
}
