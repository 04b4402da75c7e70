// Deploy on push. `POST|GET|DELETE /api/services/:serviceId/webhook` (API key) manage a service's
// webhook; `POST /api/hooks/:serviceId` receives the git host's deliveries. That one route is open
// (no API key: the delivery's signature authenticates it); its handler reads its raw body, so the
// registrar puts it on a router of its own, mounted before the key check and the JSON parser: no
// other path or method can become open by mistake. The signature covers the exact bytes; at most 1 MB.
import type { Context } from 'koa';
import { apiPath } from '../../../shared/api-routes.js';
import type { HookBase } from '../route-module.js';
import { route } from '../route-table.js';
import { rawBody } from '../body.js';

const HOOK_BODY_LIMIT = 1024 * 1024;

const urlOf = async (ctx: Context, hookBase: HookBase, serviceId: string) => `${(await hookBase(ctx)).replace(/\/+$/, '')}${apiPath('hooks.deliver', { serviceId })}`;

export const webhookRoutes = {
  ...route('webhooks.create', {
    handler: async ({ ctx, access, params }, { core, hookBase }) => {
      const { serviceId, secret } = await core.webhooks.create(access, params.serviceId);
      return { url: await urlOf(ctx, hookBase, serviceId), secret };
    },
  }),
  ...route('webhooks.get', {
    handler: async ({ ctx, access, params }, { core, hookBase }) => {
      const { serviceId, hasSecret, lastDeliveryAt } = await core.webhooks.get(access, params.serviceId);
      return { url: await urlOf(ctx, hookBase, serviceId), hasSecret, lastDeliveryAt };
    },
  }),
  ...route('webhooks.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.webhooks.delete(access, params.serviceId);
      return { ok: true };
    },
  }),
  /** The open route: only POST /api/hooks/:serviceId, on the router before the key check. */
  ...route('hooks.deliver', {
    rawBody: true,
    handler: async ({ ctx, params }, { core }) => {
      const body = await rawBody(ctx, HOOK_BODY_LIMIT);
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(ctx.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
      const outcome = await core.webhooks.receive(params.serviceId, { headers, body, contentType: ctx.get('content-type') });
      ctx.status = 202;
      return outcome;
    },
  }),
};
