import type Router from '@koa/router';
import type { NewServiceInput } from '../../core/service-spec.js';
import type { ServicePatch } from '../../core/services.js';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse, serviceCreate, servicePatch, transfer } from '../validate.js';

export function serviceRoutes(router: Router, { core, cache }: AppServices): void {
  router.post('/api/projects/:projectId/services', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const { env, ...input } = parse(serviceCreate, ctx.request.body);
    ctx.body = { service: await core.services.create(access, ctx.params.projectId!, input as NewServiceInput, env ?? []) };
  });
  router.get('/api/services/:serviceId/overview', async (ctx) => {
    await cache.respond(ctx, () => core.services.overview(accessOf(ctx), ctx.params.serviceId!));
  });
  router.patch('/api/services/:serviceId', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const patch = parse(servicePatch, ctx.request.body) as ServicePatch;
    ctx.body = { service: await core.services.patch(access, ctx.params.serviceId!, patch) };
  });
  router.post('/api/services/:serviceId/transfer', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const { targetProjectId } = parse(transfer, ctx.request.body);
    ctx.body = await core.services.transfer(access, ctx.params.serviceId!, targetProjectId);
  });
  router.delete('/api/services/:serviceId', async (ctx) => {
    const proxy = await core.services.delete(accessOf(ctx), ctx.params.serviceId!);
    ctx.body = { ok: true, proxy };
  });
  router.get('/api/services/:serviceId/suggestion-keys', async (ctx) => {
    await cache.respond(ctx, () => core.services.suggestionKeys(accessOf(ctx), ctx.params.serviceId!));
  });
}
