// GET /api/services/:serviceId/build-plan (read; the service's project visible): what a deployment
// would build, from the branch's head, without building: the builder, autobuild's plan and the
// Dockerfile it would generate.
import type Router from '@koa/router';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';

export function buildPlanRoutes(router: Router, { core }: AppServices): void {
  router.get('/api/services/:serviceId/build-plan', async (ctx) => {
    ctx.body = { plan: await core.buildPlans.preview(accessOf(ctx), ctx.params.serviceId!) };
  });
}
