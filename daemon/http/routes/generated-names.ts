// The record of generated hostnames (core/generated-names.ts), for keys over all projects:
// `GET /api/generated-names` lists every label handed out, with the project it is kept for;
// `DELETE /api/generated-names/:label` releases one (a label or its full hostname) so that another
// project's service may get it.
import type Router from '@koa/router';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';

export function generatedNameRoutes(router: Router, { core }: AppServices): void {
  router.get('/api/generated-names', async (ctx) => {
    ctx.body = { names: await core.generatedNames.list(accessOf(ctx)) };
  });
  router.delete('/api/generated-names/:label', async (ctx) => {
    await core.generatedNames.release(accessOf(ctx), ctx.params.label!);
    ctx.body = { ok: true };
  });
}
