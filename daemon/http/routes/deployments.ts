import type Router from '@koa/router';
import { z } from 'zod';
import type { Core } from '../../core/core.js';
import { logLineView, TERMINAL_STATUSES } from '../../core/deployments.js';
import type { LogLineRecord } from '../../core/records.js';
import type { DaemonEvents } from '../../deploy/events.js';
import type { LogBook } from '../../deploy/log-book.js';
import type { RuntimeLogs } from '../../deploy/runtime-logs.js';
import { accessOf } from '../auth.js';
import type { ResponseCache } from '../response-cache.js';
import { lastEventId, openSse, type SseChannel } from '../sse.js';
import type { SseStreams } from '../sse-streams.js';
import { Access } from '../../core/access.js';
import { parse } from '../validate.js';

export interface StreamDeps {
  buildLogs: LogBook;
  runtimeLogs: RuntimeLogs;
  events: DaemonEvents;
  pingMs: number;
  /** Open streams per key: the cap, and the re-check after writes. */
  sse: SseStreams;
}

/** The stream's key as it is now (null once revoked), for SseGuard.stillAllowed. */
export async function currentAccess(core: Core, access: Access): Promise<Access | null> {
  const key = await core.keys.find(access.key.id);
  return key ? new Access(key) : null;
}

// Clients in the field send {branch, force}; unknown fields are ignored, not refused.
const deployBody = z.object({ branch: z.string().max(255).optional(), force: z.boolean().optional() });

const RUNTIME_SNAPSHOT_LINES = 500;

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

export function deploymentRoutes(router: Router, core: Core, cache: ResponseCache, s: StreamDeps): void {
  router.post('/api/services/:serviceId/deployments', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const input = parse(deployBody, ctx.request.body);
    ctx.body = { deployment: await core.deployments.create(access, ctx.params.serviceId!, input) };
  });

  router.get('/api/services/:serviceId/deployments', async (ctx) => {
    await cache.respond(ctx, async () => ({ deployments: await core.deployments.list(accessOf(ctx), ctx.params.serviceId!) }));
  });

  router.post('/api/deployments/:deploymentId/abort', async (ctx) => {
    await core.deployments.abort(accessOf(ctx), ctx.params.deploymentId!);
    ctx.body = { accepted: true };
  });

  router.post('/api/deployments/:deploymentId/rollback', async (ctx) => {
    ctx.body = { deployment: await core.deployments.rollback(accessOf(ctx), ctx.params.deploymentId!) };
  });

  router.get('/api/deployments/:deploymentId/logs', async (ctx) => {
    ctx.body = { logs: await core.deployments.logs(accessOf(ctx), ctx.params.deploymentId!) };
  });

  router.get('/api/deployments/:deploymentId/stream', async (ctx) => {
    const access = accessOf(ctx);
    const { deployment } = await core.deployments.visible(access, ctx.params.deploymentId!);
    const from = lastEventId(ctx);
    let lastId = () => from;
    const channel = openSse(ctx, s.pingMs, () => lastId(), {
      streams: s.sse,
      stillAllowed: async () => {
        const now = await currentAccess(core, access);
        return now !== null && (await core.deployments.visible(now, deployment.id).then(() => true, () => false));
      },
    });
    const view = (l: LogLineRecord) => ({ ...logLineView(l), deploymentId: deployment.id });
    const stream = relay(channel, (fn) => s.buildLogs.subscribe(deployment.id, fn), view);
    lastId = stream.lastId;
    const finish = (status: string) => {
      channel.send('end', { status }, stream.lastId());
      channel.close();
    };
    const stopWatching = s.events.onDeployment((change) => {
      if (change.deploymentId === deployment.id && TERMINAL_STATUSES.includes(change.status)) finish(change.status);
    });
    channel.onClose(stopWatching);
    stream.snapshot(await s.buildLogs.read(deployment.id, from), from);
    const now = await core.deployments.visible(accessOf(ctx), deployment.id).catch(() => null);
    if (!now) finish('deleted');
    else if (TERMINAL_STATUSES.includes(now.deployment.status)) finish(now.deployment.status);
  });

  router.get('/api/services/:serviceId/runtime-logs/stream', async (ctx) => {
    const access = accessOf(ctx);
    const serviceId = (await core.services.visible(access, ctx.params.serviceId!)).id;
    const from = lastEventId(ctx);
    let lastId = () => from;
    const channel = openSse(ctx, s.pingMs, () => lastId(), {
      streams: s.sse,
      stillAllowed: async () => {
        const now = await currentAccess(core, access);
        return now !== null && (await core.services.visible(now, serviceId).then(() => true, () => false));
      },
    });
    const stream = relay(channel, (fn) => s.runtimeLogs.book.subscribe(serviceId, fn), logLineView);
    lastId = stream.lastId;
    const lines = from > 0 ? await s.runtimeLogs.book.read(serviceId, from) : await s.runtimeLogs.book.tail(serviceId, RUNTIME_SNAPSHOT_LINES);
    stream.snapshot(lines, from);
    const open = s.runtimeLogs.isOpen(serviceId);
    channel.send('status', { ok: open === true, closed: open !== true }, stream.lastId());
    if (open !== true) return channel.close();
    channel.onClose(
      s.runtimeLogs.onClosed(serviceId, () => {
        channel.send('status', { ok: false, closed: true }, stream.lastId());
        channel.close();
      }),
    );
  });
}
