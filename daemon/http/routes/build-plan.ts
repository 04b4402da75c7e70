// GET /api/services/:serviceId/build-plan (read; the service's project visible): what a deployment
// would build, from the branch's head, without building: the builder, autobuild's plan and the
// Dockerfile it would generate.
import { route } from '../route-table.js';

export const buildPlanRoutes = {
  ...route('services.build-plan', {
    handler: async ({ access, params }, { core }) => ({ plan: await core.buildPlans.preview(access, params.serviceId) }),
  }),
};
