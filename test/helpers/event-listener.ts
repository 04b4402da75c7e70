// Listening to GET /api/events as a key does: every event received, with its parsed data.
import type { BerthClient } from '../../shared/client.js';
import type { SseEvent } from '../../shared/sse.js';

export interface HeardEvent extends SseEvent {
  json: Record<string, unknown>;
  receivedAt: number;
}

export interface EventListener {
  events: HeardEvent[];
  /** Events other than pings. */
  heard(): HeardEvent[];
  stop(): void;
}

export function listenToEvents(client: BerthClient, lastEventId?: string): EventListener {
  const controller = new AbortController();
  const events: HeardEvent[] = [];
  void (async () => {
    try {
      for await (const e of client.stream('/api/events', { signal: controller.signal, ...(lastEventId ? { lastEventId } : {}) })) {
        events.push({ ...e, json: JSON.parse(e.data) as Record<string, unknown>, receivedAt: Date.now() });
      }
    } catch {
      // aborted
    }
  })();
  return { events, heard: () => events.filter((e) => e.event !== 'ping'), stop: () => controller.abort() };
}
