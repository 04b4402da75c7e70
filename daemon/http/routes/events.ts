// GET /api/events: one Server-Sent Events stream of what changes on the daemon, limited to the
// projects the key can see. Each event's `id:` is its sequence number; a client that reconnects
// with Last-Event-ID gets what it missed from a bounded history, or a `reset` event when that part
// of the history is gone (then it should reload what it shows).
import type { PublishedEvent } from '../../core/events.js';
import { route } from '../route-table.js';
import { lastEventId, openSse } from '../sse.js';

export const eventRoutes = route('events', {
  handler: ({ ctx, access }, { core, pingMs, sse }) => {
    const events = core.events.follow(access);
    const from = lastEventId(ctx);
    // a new client starts from now; a returning one from where it left off
    let lastSent = from > 0 ? from : events.lastId();
    // keys cannot be edited: the stream ends when its key is revoked
    const channel = openSse(ctx, pingMs, () => lastSent, { streams: sse, stillAllowed: events.stillAllowed });
    const send = (e: PublishedEvent) => {
      if (e.id <= lastSent) return;
      lastSent = e.id;
      if (events.sees(e)) channel.send(e.type, { ...e.data, at: e.at }, e.id);
    };
    // No await from here on: nothing can be published between the replay and the subscription.
    if (from > 0) {
      const missed = events.since(from);
      if (missed === null) {
        lastSent = events.lastId();
        channel.send('reset', { reason: 'events after the given Last-Event-ID are no longer kept; reload what you show' }, lastSent);
      } else {
        for (const e of missed) send(e);
      }
    }
    channel.onClose(events.subscribe(send));
  },
});
