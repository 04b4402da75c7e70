import type Router from '@koa/router';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { envEntry, parse } from '../validate.js';

export function envRoutes(router: Router, { core }: AppServices): void {
  router.post('/api/services/:serviceId/env', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const { key, value } = parse(envEntry, ctx.request.body);
    await core.env.upsert(access, ctx.params.serviceId!, key, value);
    ctx.body = { ok: true };
  });
  router.delete('/api/services/:serviceId/env/:envId', async (ctx) => {
    await core.env.delete(accessOf(ctx), ctx.params.serviceId!, ctx.params.envId!);
    ctx.body = { ok: true };
  });
}
