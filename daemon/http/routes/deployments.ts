// Deployments: create, list, abort, rollback, the build log, and the live streams of a
// deployment's build log and a service's runtime log (Server-Sent Events; core/log-streams.ts
// checks the key when a stream opens and whenever it is re-checked).
import { z } from 'zod';
import { logLineView } from '../../core/deployments.js';
import { LOG_PAGE_LINES, type LogPageQuery } from '../../core/log-pages.js';
import type { LogLineRecord } from '../../core/records.js';
import { singleQuery } from '../query.js';
import { route } from '../route-table.js';
import { lastEventId, openSse, type SseChannel } from '../sse.js';
import { parse } from '../validate.js';

// Clients in the field send {branch, force}; unknown fields are ignored, not refused.
const deployBody = z.object({ branch: z.string().max(255).optional(), force: z.boolean().optional() });

/** A build log page (core/log-pages.ts): after a line id (default: from the start), before one, or the tail. */
const lineId = z.coerce.number().int('must be a line id (an integer)').min(0).max(Number.MAX_SAFE_INTEGER).optional();
const logsQuery = z
  .object({
    after: lineId,
    before: lineId,
    tail: z
      .enum(['true', 'false', '1', '0'])
      .transform((v) => v === 'true' || v === '1')
      .optional(),
    limit: z.coerce.number().int('must be an integer').min(1).max(LOG_PAGE_LINES, `must be at most ${LOG_PAGE_LINES}`).optional(),
  })
  .refine((q) => [q.after !== undefined, q.before !== undefined, q.tail === true].filter(Boolean).length <= 1, 'give at most one of after, before and tail');

/**
 * Live lines that arrive while the snapshot is read are held back, then sent if newer than the
 * snapshot, so a client sees every line exactly once and in order.
 */
function relay(channel: SseChannel, subscribe: (fn: (l: LogLineRecord) => void) => () => void, toEvent: (l: LogLineRecord) => unknown) {
  let lastSent = 0;
  let held: LogLineRecord[] | null = [];
  const send = (l: LogLineRecord) => {
    if (l.id <= lastSent) return;
    lastSent = l.id;
    channel.send('log', toEvent(l), l.id);
  };
  const unsubscribe = subscribe((l) => (held ? held.push(l) : send(l)));
  channel.onClose(unsubscribe);
  return {
    lastId: () => lastSent,
    snapshot(lines: LogLineRecord[], from: number) {
      lastSent = lines.at(-1)?.id ?? from;
      channel.send('snapshot', lines.map(toEvent), lastSent);
      for (const l of held ?? []) send(l);
      held = null;
    },
  };
}

export const deploymentRoutes = {
  ...route('deployments.create', {
    body: deployBody,
    handler: async ({ access, params, body }, { core }) => ({ deployment: await core.deployments.create(access, params.serviceId, body) }),
  }),
  ...route('deployments.list', {
    handler: ({ ctx, access, params }, { core, cache }) => cache.respond(ctx, async () => ({ deployments: await core.deployments.list(access, params.serviceId) })),
  }),
  ...route('deployments.abort', {
    handler: async ({ access, params }, { core }) => {
      await core.deployments.abort(access, params.deploymentId);
      return { accepted: true };
    },
  }),
  ...route('deployments.rollback', {
    handler: async ({ access, params }, { core }) => ({ deployment: await core.deployments.rollback(access, params.deploymentId) }),
  }),
  ...route('deployments.logs', {
    handler: ({ ctx, access, params }, { core, heavyReads }) => {
      const q = parse(logsQuery, singleQuery(ctx));
      const page: LogPageQuery = q.before !== undefined ? { before: q.before } : q.tail ? { tail: true } : { after: q.after ?? 0 };
      return heavyReads.run(access.key.id, 'log reads', () => core.deployments.logs(access, params.deploymentId, page, q.limit));
    },
  }),
  ...route('deployments.stream', {
    handler: async ({ ctx, access, params }, { core, sse, pingMs }) => {
      const log = await core.logStreams.deployment(access, params.deploymentId);
      const deployment = log.deployment;
      const from = lastEventId(ctx);
      let lastId = () => from;
      const channel = openSse(ctx, pingMs, () => lastId(), { streams: sse, stillAllowed: log.stillAllowed });
      const view = (l: LogLineRecord) => ({ ...logLineView(l), deploymentId: deployment.id });
      const stream = relay(channel, log.subscribe, view);
      lastId = stream.lastId;
      const finish = (status: string) => {
        channel.send('end', { status }, stream.lastId());
        channel.close();
      };
      channel.onClose(log.onEnd(finish));
      stream.snapshot(await log.snapshot(from), from);
      const ended = await log.ended();
      if (ended) finish(ended);
    },
  }),
  ...route('services.runtime-logs', {
    handler: async ({ ctx, access, params }, { core, sse, pingMs }) => {
      const log = await core.logStreams.runtime(access, params.serviceId);
      const from = lastEventId(ctx);
      let lastId = () => from;
      const channel = openSse(ctx, pingMs, () => lastId(), { streams: sse, stillAllowed: log.stillAllowed });
      const stream = relay(channel, log.subscribe, logLineView);
      lastId = stream.lastId;
      stream.snapshot(await log.snapshot(from), from);
      const open = log.isOpen();
      channel.send('status', { ok: open === true, closed: open !== true }, stream.lastId());
      if (open !== true) {
        channel.close();
        return;
      }
      channel.onClose(
        log.onClosed(() => {
          channel.send('status', { ok: false, closed: true }, stream.lastId());
          channel.close();
        }),
      );
    },
  }),
};
