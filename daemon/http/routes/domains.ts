import type Router from '@koa/router';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { hostnameBody, parse } from '../validate.js';

export function domainRoutes(router: Router, { core }: AppServices): void {
  router.post('/api/services/:serviceId/domains', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const { hostname } = parse(hostnameBody, ctx.request.body);
    const { domain, proxy } = await core.domains.add(access, ctx.params.serviceId!, hostname);
    // Clients in the field read the created domain from `domain`, beside the spec's ok and proxy.
    ctx.body = { ok: true, proxy, domain };
  });
  router.patch('/api/services/:serviceId/domains/:domainId', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const { hostname } = parse(hostnameBody, ctx.request.body);
    ctx.body = { ok: true, proxy: await core.domains.update(access, ctx.params.serviceId!, ctx.params.domainId!, hostname) };
  });
  router.delete('/api/services/:serviceId/domains/:domainId', async (ctx) => {
    ctx.body = { ok: true, proxy: await core.domains.remove(accessOf(ctx), ctx.params.serviceId!, ctx.params.domainId!) };
  });
}
