// The audit log (GET /api/audit): one entry per mutating API call (every route of the table whose
// method is not GET, the terminal's WebSocket, signed webhook deliveries, sign-ins and sign-outs)
// and per key created or revoked with `berth keys` on the server. Recorded once the answer is known;
// never a request body, a token, an env value or a passphrase.
import type { Timestamp } from './common.js';

/** Who made the call: an API key (Bearer), a console session, a git host's delivery, or the server's own `berth keys`. */
export type AuditActorKind = 'key' | 'session' | 'webhook' | 'server';

export interface AuditActor {
  kind: AuditActorKind;
  /** The key used (or signed in with); null when none was known (a refused sign-in, an unknown key, a webhook, the server). */
  keyId: string | null;
  /** The key's name when the call was made (kept after the key is revoked). */
  keyName: string | null;
}

export type AuditOutcome = 'ok' | 'error';

export interface AuditEntry {
  /** Increasing: a newer entry has a greater id (the `before` cursor). */
  id: string;
  at: Timestamp;
  actor: AuditActor;
  /** The TCP peer; the X-Forwarded-For client only when the peer is this host (Caddy in front). */
  clientAddress: string | null;
  method: string;
  /** The route id of shared/api-routes.ts, e.g. `services.create`. */
  route: string;
  /** The concrete path, never a query string. */
  path: string;
  projectId: string | null;
  serviceId: string | null;
  /** What the call was about beyond its path, never a secret: an exec's command, `terminal`. */
  detail: string | null;
  /** The HTTP status (101 for a terminal that opened). */
  status: number;
  outcome: AuditOutcome;
  /** The error body's code when it failed. */
  errorCode: string | null;
  durationMs: number;
}

/** GET /api/audit's filters. */
export interface AuditQuery {
  projectId?: string;
  keyId?: string;
  /** A route id (`services.create`) or a prefix ending with a dot (`services.`). */
  action?: string;
  outcome?: AuditOutcome;
  /** ISO 8601 bounds on `at` (from inclusive, to exclusive). */
  from?: string;
  to?: string;
  /** 1..200, default 50. */
  limit?: number;
  /** The id of the last entry seen: older entries follow. */
  before?: string;
}

export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** Pass as `before` for the next (older) page; null when there is none. */
  nextCursor: string | null;
}
