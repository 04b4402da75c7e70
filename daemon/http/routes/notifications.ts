// Notification channels (system settings, all-projects keys): list, create, change, delete, and a
// test that sends one notice now.
import { z } from 'zod';
import { NOTIFY_EVENTS, type ChannelInput, type ChannelPatch } from '../../core/notification-channels.js';
import { route } from '../route-table.js';

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
  events: z
    .array(z.enum(NOTIFY_EVENTS))
    .min(1, 'choose at least one event')
    .max(NOTIFY_EVENTS.length * 2),
};
const address = z
  .string()
  .trim()
  .min(3)
  .max(254)
  .refine((v) => /^[^\s@<>]+@[^\s@<>]+$/.test(v), 'must be an e-mail address');
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
]) satisfies z.ZodType<ChannelInput>;
// which fields fit the channel's type is core's check: the body alone does not say the type
const channelPatch = z
  .strictObject({ ...common, url: httpUrl, ...email })
  .partial()
  .refine((o) => Object.keys(o).length > 0, 'nothing to change') satisfies z.ZodType<ChannelPatch>;

export const notificationRoutes = {
  ...route('notifications.list', { handler: async ({ access }, { core }) => ({ channels: await core.notifications.list(access) }) }),
  ...route('notifications.create', { body: channelBody, handler: ({ access, body }, { core }) => core.notifications.create(access, body) }),
  ...route('notifications.patch', { body: channelPatch, handler: ({ access, params, body }, { core }) => core.notifications.update(access, params.channelId, body) }),
  ...route('notifications.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.notifications.delete(access, params.channelId);
      return { ok: true };
    },
  }),
  ...route('notifications.test', { handler: ({ access, params }, { core }) => core.notifications.test(access, params.channelId) }),
};
