// GET /api/events as core sees it: the daemon's event feed narrowed to the projects a key can see,
// for as long as the key exists (keys cannot be edited, only revoked). A deleted project's events
// are heard by the keys that could see it (a key's project list is kept as it was issued).
import { keyHears } from '../../shared/events.js';
import type { Access } from './access.js';
import type { EventFeed, PublishedEvent } from './events.js';
import type { KeyService } from './keys.js';

export interface EventFollow {
  /** The newest event's id: where a new client starts. */
  lastId(): number;
  /** Events after `id`, or null when some have left the history (the client must reset). */
  since(id: number): PublishedEvent[] | null;
  /** Every event (ids advance past hidden ones too); `sees` says which the key may be sent. */
  subscribe(fn: (e: PublishedEvent) => void): () => void;
  sees(e: PublishedEvent): boolean;
  /** False once the key is revoked. */
  stillAllowed(): Promise<boolean>;
}

export class EventStreams {
  constructor(
    private readonly feed: EventFeed,
    private readonly keys: KeyService,
  ) {}

  /** Synchronous on purpose: a caller can replay and subscribe with nothing published in between. */
  follow(access: Access): EventFollow {
    return {
      lastId: () => this.feed.lastId,
      since: (id) => this.feed.since(id),
      subscribe: (fn) => this.feed.subscribe(fn),
      // the one place that decides who hears what: a project's keys, or only keys over all projects
      sees: (e) => keyHears(e, access),
      stillAllowed: async () => (await this.keys.find(access.key.id)) !== null,
    };
  }
}
