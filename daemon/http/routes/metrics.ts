// GET /api/system/metrics (any key): the host's CPU, memory, disks and network, and CPU and memory
// of the service containers in the key's projects. Polling clients share one cached collection.
import type Router from '@koa/router';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';

export function metricsRoutes(router: Router, { core }: AppServices): void {
  router.get('/api/system/metrics', async (ctx) => {
    ctx.body = await core.metrics.view(accessOf(ctx));
  });
}
