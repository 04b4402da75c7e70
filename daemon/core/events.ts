// The daemon side of the event stream: where core publishes, and the numbered feed the stream
// follows. The events themselves (types, payloads, scope) are the wire contract in shared/events.ts.
import type { DaemonEvent } from '../../shared/events.js';

export type { BackupEventStatus, DaemonEvent } from '../../shared/events.js';

export type PublishedEvent = DaemonEvent & { id: number; at: string };

export interface EventSink {
  publish(event: DaemonEvent): void;
}

/** The daemon's numbered event history and live feed (daemon/events/hub.ts implements it). */
export interface EventFeed {
  /** The id of the newest event published. */
  readonly lastId: number;
  subscribe(fn: (e: PublishedEvent) => void): () => void;
  /** Events after `id`, or null when some of them have already left the history. */
  since(id: number): PublishedEvent[] | null;
}

/** For tools that run without a daemon (the `berth keys` command, tests): nobody listens. */
export const NO_EVENTS: EventSink = { publish: () => undefined };
