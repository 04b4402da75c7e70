// GET /api/events: one Server-Sent Events stream of what changes on the daemon, limited to the
// projects the key can see. Each event's `id:` is its sequence number; a client that reconnects
// with Last-Event-ID gets what it missed from a bounded history, or a `reset` event when that part
// of the history is gone (then it should reload what it shows).
import type Router from '@koa/router';
import type { PublishedEvent } from '../../core/events.js';
import type { EventHub } from '../../events/hub.js';
import { accessOf } from '../auth.js';
import type { KeyService } from '../../core/keys.js';
import { lastEventId, openSse } from '../sse.js';
import type { SseStreams } from '../sse-streams.js';

export function eventRoutes(hub: EventHub, pingMs: number, streams: SseStreams, keys: KeyService): (router: Router) => void {
  return (router) => {
    router.get('/api/events', (ctx) => {
      const access = accessOf(ctx);
      const from = lastEventId(ctx);
      // a new client starts from now; a returning one from where it left off
      let lastSent = from > 0 ? from : hub.lastId;
      // keys cannot be edited: the stream ends when its key is revoked
      const channel = openSse(ctx, pingMs, () => lastSent, { streams, stillAllowed: async () => (await keys.find(access.key.id)) !== null });
      const send = (e: PublishedEvent) => {
        if (e.id <= lastSent) return;
        lastSent = e.id;
        if (access.canSee(e.projectId)) channel.send(e.type, { ...e.data, at: e.at }, e.id);
      };
      // No await from here on: nothing can be published between the replay and the subscription.
      if (from > 0) {
        const missed = hub.since(from);
        if (missed === null) {
          lastSent = hub.lastId;
          channel.send('reset', { reason: 'events after the given Last-Event-ID are no longer kept; reload what you show' }, lastSent);
        } else {
          for (const e of missed) send(e);
        }
      }
      channel.onClose(hub.subscribe(send));
    });
  };
}
