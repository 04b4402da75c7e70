// What route handlers reach (daemon/http/routes/* export handler definitions keyed by the route
// ids of shared/api-routes.ts; route-table.ts registers them). Handlers get the checked key and the
// parsed body, pass the key's Access to a core use case, and shape the answer; they never call an
// adapter.
import type { Context } from 'koa';
import type { Core } from '../core/core.js';
import type { ResponseCache } from './response-cache.js';
import type { HeavyReads } from './heavy-reads.js';
import type { SseStreams } from './sse-streams.js';

/** Where git hosts should send deliveries: the dashboard hostname when one is set, else the scheme and host the request came to. */
export type HookBase = (ctx: Context) => Promise<string>;

export interface AppServices {
  /** Every use case (core/core.ts). */
  core: Core;
  /** Read answers kept while the store is unchanged (GETs of lists and overviews). */
  cache: ResponseCache;
  /** Open event streams per key: the cap, and the re-check after writes. */
  sse: SseStreams;
  /** How often an idle stream sends a comment line. */
  pingMs: number;
  /** Large reads (log pages) in flight per key: the cap. */
  heavyReads: HeavyReads;
  hookBase: HookBase;
  /** The daemon's version (the health answer). */
  version: string;
}
