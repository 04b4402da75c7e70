// The daemon's event hub: numbers every event, keeps a bounded history for resumption with
// Last-Event-ID, and hands events to live subscribers.
import type { Clock } from '../core/clock.js';
import type { DaemonEvent, EventSink, PublishedEvent } from '../core/events.js';

export class EventHub implements EventSink {
  /**
   * Ids start at the start time in milliseconds, so they keep increasing across restarts: a client
   * resuming with an id from before a restart is told to reset instead of waiting for ids that
   * would never come.
   */
  private nextId: number;
  private history: PublishedEvent[] = [];
  private listeners = new Set<(e: PublishedEvent) => void>();

  constructor(
    private clock: Clock,
    private readonly keep = 1000,
  ) {
    this.nextId = Date.parse(clock.now());
  }

  publish(event: DaemonEvent): void {
    const published = { ...event, id: this.nextId++, at: this.clock.now() } as PublishedEvent;
    this.history.push(published);
    if (this.history.length > this.keep) this.history.splice(0, this.history.length - this.keep);
    for (const fn of this.listeners) fn(published);
  }

  subscribe(fn: (e: PublishedEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Events after `id`, or null when some of them have already left the history. */
  since(id: number): PublishedEvent[] | null {
    if (id === this.nextId - 1) return [];
    if (id > this.nextId - 1) return null; // from the future: another daemon run
    const oldest = this.history[0]?.id ?? this.nextId;
    if (id < oldest - 1) return null;
    return this.history.filter((e) => e.id > id);
  }

  get lastId(): number {
    return this.nextId - 1;
  }
}
