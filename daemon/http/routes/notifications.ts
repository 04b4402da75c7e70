// Notification channels (system settings, all-projects keys): list, create, change, delete, and a
// test that sends one notice now.
import type Router from '@koa/router';
import { z } from 'zod';
import { NOTIFY_EVENTS, type ChannelInput, type ChannelPatch } from '../../core/notification-channels.js';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse } from '../validate.js';

const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');
const common = {
  name: z.string().trim().min(1, 'must not be empty').max(100),
  events: z.array(z.enum(NOTIFY_EVENTS)).min(1, 'choose at least one event').max(NOTIFY_EVENTS.length * 2),
};
const address = z.string().trim().min(3).max(254).refine((v) => /^[^\s@<>]+@[^\s@<>]+$/.test(v), 'must be an e-mail address');
const email = {
  host: z.string().trim().min(1).max(253),
  port: z.number().int().min(1).max(65535),
  secure: z.boolean(),
  username: z.string().max(254).nullable(),
  password: z.string().max(1024).nullable(),
  from: address,
  to: z.array(address).min(1).max(50),
};
const channelBody = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('webhook'), url: httpUrl, ...common }),
  z.strictObject({ type: z.literal('slack'), url: httpUrl, ...common }),
  z.strictObject({ type: z.literal('discord'), url: httpUrl, ...common }),
  z.strictObject({ type: z.literal('email'), ...common, ...email, secure: email.secure.default(false), username: email.username.default(null), password: email.password.default(null) }),
]);
// which fields fit the channel's type is core's check: the body alone does not say the type
const channelPatch = z
  .strictObject({ ...common, url: httpUrl, ...email })
  .partial()
  .refine((o) => Object.keys(o).length > 0, 'nothing to change');

export function notificationRoutes(router: Router, { core }: AppServices): void {
  router.get('/api/system/notifications', async (ctx) => {
    ctx.body = { channels: await core.notifications.list(accessOf(ctx)) };
  });
  router.post('/api/system/notifications', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('changing notification channels');
    const input = parse(channelBody, ctx.request.body) as ChannelInput;
    ctx.body = await core.notifications.create(access, input);
  });
  router.patch('/api/system/notifications/:channelId', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('changing notification channels');
    ctx.body = await core.notifications.update(access, ctx.params.channelId!, parse(channelPatch, ctx.request.body) as ChannelPatch);
  });
  router.delete('/api/system/notifications/:channelId', async (ctx) => {
    await core.notifications.delete(accessOf(ctx), ctx.params.channelId!);
    ctx.body = { ok: true };
  });
  router.post('/api/system/notifications/:channelId/test', async (ctx) => {
    ctx.body = await core.notifications.test(accessOf(ctx), ctx.params.channelId!);
  });
}
