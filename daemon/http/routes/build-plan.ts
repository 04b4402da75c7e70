// GET /api/services/:serviceId/build-plan (read; the service's project visible): what a deployment
// would build, from the branch's head, without building: the builder, autobuild's plan and the
// Dockerfile it would generate.
import type Router from '@koa/router';
import type { BuildPlans } from '../../build/autobuild/preview.js';
import { accessOf } from '../auth.js';

export function buildPlanRoutes(plans: BuildPlans): (router: Router) => void {
  return (router) => {
    router.get('/api/services/:serviceId/build-plan', async (ctx) => {
      ctx.body = { plan: await plans.preview(accessOf(ctx), ctx.params.serviceId!) };
    });
  };
}
