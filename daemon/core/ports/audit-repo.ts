// The audit log's table (store/audit-repo.ts implements it): append, read newest first, prune.
// Nothing here changes or deletes one entry: only whole ranges go, by age or past the row cap.
import type { AuditEntry, AuditOutcome } from '../../../shared/types.js';

/** An entry before the store numbers it. */
export type AuditDraft = Omit<AuditEntry, 'id'>;

export interface AuditFilter {
  projectId?: string;
  keyId?: string;
  /** An exact route id. */
  route?: string;
  /** A route id prefix (`services.`). */
  routePrefix?: string;
  outcome?: AuditOutcome;
  /** ISO bounds on `at`: from inclusive, to exclusive. */
  from?: string;
  to?: string;
  /** Only entries with a smaller id. */
  before?: number;
  limit: number;
}

export interface AuditRepo {
  /** Appends the entries in order; answers their ids. */
  insert(entries: readonly AuditDraft[]): Promise<string[]>;
  /** Newest first. */
  page(filter: AuditFilter): Promise<AuditEntry[]>;
  /** Removes the entries older than `at`; answers how many went. */
  pruneBefore(at: string): Promise<number>;
  /** Removes the oldest entries until at most `maxRows` are left; answers how many went. */
  pruneToRows(maxRows: number): Promise<number>;
}
