// Deploy on push. `POST|GET|DELETE /api/services/:serviceId/webhook` (API key) manage a service's
// webhook; `POST /api/hooks/:serviceId` receives the git host's deliveries. That one route is open
// (no API key: the delivery's signature authenticates it) and is registered on a router of its own,
// mounted before the key check, so no other path or method can become open by mistake. Its body is
// read raw (the signature covers the exact bytes), at most 1 MB.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';

export const HOOK_BODY_LIMIT = 1024 * 1024;

export function webhookRoutes(router: Router, { core, hookBase }: AppServices): void {
  const urlOf = async (ctx: Context, serviceId: string) => `${(await hookBase(ctx)).replace(/\/+$/, '')}/api/hooks/${encodeURIComponent(serviceId)}`;

  router.post('/api/services/:serviceId/webhook', async (ctx) => {
    const { serviceId, secret } = await core.webhooks.create(accessOf(ctx), ctx.params.serviceId!);
    ctx.body = { url: await urlOf(ctx, serviceId), secret };
  });
  router.get('/api/services/:serviceId/webhook', async (ctx) => {
    const { serviceId, hasSecret, lastDeliveryAt } = await core.webhooks.get(accessOf(ctx), ctx.params.serviceId!);
    ctx.body = { url: await urlOf(ctx, serviceId), hasSecret, lastDeliveryAt };
  });
  router.delete('/api/services/:serviceId/webhook', async (ctx) => {
    await core.webhooks.delete(accessOf(ctx), ctx.params.serviceId!);
    ctx.body = { ok: true };
  });
}

/** The open route: only POST /api/hooks/:serviceId. */
export function hookRoutes(router: Router, { core }: AppServices): void {
  router.post('/api/hooks/:serviceId', async (ctx) => {
    const body = await rawBody(ctx, HOOK_BODY_LIMIT);
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(ctx.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
    const outcome = await core.webhooks.receive(ctx.params.serviceId!, { headers, body, contentType: ctx.get('content-type') });
    ctx.status = 202;
    ctx.body = outcome;
  });
}

async function rawBody(ctx: Context, limit: number): Promise<Buffer> {
  const tooLarge = () => Object.assign(new Error('request body is too large'), { status: 413 });
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
