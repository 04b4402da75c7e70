// The audit log: who changed what. The HTTP layer (http/audit.ts) hands over every mutating call
// once its answer is known; the server's own `berth keys` hands over key changes. Entries are
// queued and written in batches a moment later (never on the request's path, and never failing it):
// a batch the store refused is logged with its size, as are entries dropped when the queue is full.
// Reading needs a key over all projects; nothing changes or deletes one entry: whole ranges go by age
// (the `auditRetentionDays` setting) and past the row cap, in `prune`.
import type { AuditEntry, AuditPage, AuditQuery } from '../../shared/types.js';
import type { Access } from './access.js';
import { auditRetentionDays } from './audit-retention.js';
import type { Clock } from './clock.js';
import { InvalidInput } from './errors.js';
import { redactor } from './redact.js';
import type { EventSink } from './events.js';
import type { AuditDraft, AuditFilter, AuditRepo } from './ports/audit-repo.js';
import type { Store } from './ports/store.js';

/** The project and service a call named (null: none, or unknown). */
export interface AuditTarget {
  projectId: string | null;
  serviceId: string | null;
}

/** A call as the caller knows it, once its answer is known (the entry's time is the clock's, then); where it points is resolved (or given) apart. */
export type AuditCall = Omit<AuditDraft, 'projectId' | 'serviceId' | 'at'>;

const NO_TARGET: AuditTarget = { projectId: null, serviceId: null };
/** A detail (an exec's command) loses whatever looks like a credential (a URL's password, a token, PASSWORD=...). */
const redact = redactor([]);
const DETAIL_MAX = 1000;

/** How long entries wait to be written together. */
const FLUSH_MS = 50;
/** Entries written in one INSERT at most. */
const BATCH_MAX = 500;
/** Entries waiting at most; past it new ones are dropped (and the count logged) until the store catches up. */
const QUEUE_MAX = 20_000;
const AUDIT_PAGE = { default: 50, max: 200 } as const;

export interface AuditLogDeps {
  repo: AuditRepo;
  store: Pick<Store, 'projects' | 'services' | 'deployments' | 'settings'>;
  clock: Clock;
  events: EventSink;
  /** Where a write that failed, and dropped entries, are told (the daemon's log). */
  log: (message: string, err?: unknown) => void;
  /** The row cap (oldest entries pruned past it). */
  maxRows: number;
}

interface Queued {
  call: AuditCall & { at: string };
  target: Promise<AuditTarget> | AuditTarget;
}

export class AuditLog {
  private queue: Queued[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dropped = 0;
  private sinceCapCheck = 0;
  /** Entries written between two checks of the row cap: a flood is bounded well before the hourly prune. */
  private readonly capCheckEvery: number;

  constructor(private deps: AuditLogDeps) {
    this.capCheckEvery = Math.max(1, Math.min(10_000, Math.floor(deps.maxRows / 10)));
  }

  /**
   * The project and service named by a call's path parameters, read before the call runs (a service
   * being deleted still names its project). Never rejects: an unreadable target is no target.
   */
  async target(params: Readonly<Record<string, string>>): Promise<AuditTarget> {
    try {
      const { store } = this.deps;
      let serviceId: string | null = params.serviceId ?? null;
      if (serviceId === null && params.deploymentId !== undefined) serviceId = (await store.deployments.get(params.deploymentId))?.serviceId ?? null;
      if (serviceId !== null) {
        const service = await store.services.get(serviceId);
        return service ? { projectId: service.projectId, serviceId: service.id } : NO_TARGET;
      }
      if (params.projectId !== undefined) return (await store.projects.get(params.projectId)) ? { projectId: params.projectId, serviceId: null } : NO_TARGET;
      return NO_TARGET;
    } catch {
      return NO_TARGET;
    }
  }

  /** Queues one entry (synchronously: it is in the next flush, and a read flushes first). */
  record(call: AuditCall, target: Promise<AuditTarget> | AuditTarget = NO_TARGET): void {
    if (this.queue.length >= QUEUE_MAX) {
      this.dropped++;
      return;
    }
    const detail = call.detail === null ? null : redact(call.detail).slice(0, DETAIL_MAX);
    this.queue.push({ call: { ...call, at: this.deps.clock.now(), detail }, target });
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, FLUSH_MS);
  }

  /** Writes everything queued so far; resolves when it is written (or its failure logged). Never rejects. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.writing = this.writing.then(() => this.writeQueued());
    return this.writing;
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH_MAX);
      try {
        const drafts = await Promise.all(batch.map(async (q) => ({ ...q.call, ...(await q.target) })));
        const ids = await this.deps.repo.insert(drafts);
        const last = drafts.length - 1;
        // one event per batch: an open audit view refetches once, however many calls came together
        this.deps.events.publish({ type: 'audit', allProjects: true, data: { entryId: ids[last]!, route: drafts[last]!.route, outcome: drafts[last]!.outcome, count: drafts.length } });
        this.sinceCapCheck += drafts.length;
      } catch (err) {
        this.deps.log(`audit log: ${batch.length} entries could not be recorded`, err);
      }
    }
    if (this.dropped > 0) {
      this.deps.log(`audit log: ${this.dropped} entries were dropped: more than ${QUEUE_MAX} waited for the store`);
      this.dropped = 0;
    }
    if (this.sinceCapCheck >= this.capCheckEvery) {
      this.sinceCapCheck = 0;
      await this.deps.repo.pruneToRows(this.deps.maxRows).catch((err: unknown) => this.deps.log('audit log: pruning past the row cap', err));
    }
  }

  /** GET /api/audit: newest first, filtered, paged with the `before` cursor. */
  async list(access: Access, query: AuditQuery): Promise<AuditPage> {
    access.requireAllProjects('reading the audit log');
    const filter = filterOf(query);
    await this.flush(); // a caller reads its own calls
    const rows = await this.deps.repo.page({ ...filter, limit: filter.limit + 1 });
    const entries: AuditEntry[] = rows.slice(0, filter.limit);
    return { entries, nextCursor: rows.length > filter.limit ? entries[entries.length - 1]!.id : null };
  }

  /** Removes entries past the retention (as of `now`, the clock's time unless a test drives it) and past the row cap. */
  async prune(now: string = this.deps.clock.now()): Promise<{ expired: number; overCap: number }> {
    await this.flush();
    const days = await auditRetentionDays(this.deps.store.settings);
    const cutoff = new Date(Date.parse(now) - days * 86_400_000).toISOString();
    const expired = await this.deps.repo.pruneBefore(cutoff);
    const overCap = await this.deps.repo.pruneToRows(this.deps.maxRows);
    return { expired, overCap };
  }
}

const ISO_LIKE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

function instant(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = ISO_LIKE.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new InvalidInput(`${name} must be an ISO 8601 time such as 2030-01-31T12:00:00Z`);
  return new Date(ms).toISOString();
}

/** The query checked and turned into the repository's filter. */
function filterOf(q: AuditQuery): AuditFilter & { limit: number } {
  const limit = q.limit ?? AUDIT_PAGE.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE.max) throw new InvalidInput(`limit must be a whole number from 1 to ${AUDIT_PAGE.max}`);
  let before: number | undefined;
  if (q.before !== undefined) {
    if (!/^[1-9]\d{0,15}$/.test(q.before)) throw new InvalidInput('before must be the id of an audit entry (the nextCursor of the previous page)');
    before = Number(q.before);
  }
  const action = q.action?.trim();
  if (action !== undefined && !/^[a-z0-9.-]{1,100}$/.test(action)) throw new InvalidInput('action must be a route id such as services.create, or a prefix such as services.');
  if (q.outcome !== undefined && q.outcome !== 'ok' && q.outcome !== 'error') throw new InvalidInput('outcome must be ok or error');
  const filter: AuditFilter & { limit: number } = { limit };
  if (q.projectId) filter.projectId = q.projectId;
  if (q.keyId) filter.keyId = q.keyId;
  if (action) {
    if (action.endsWith('.')) filter.routePrefix = action;
    else filter.route = action;
  }
  if (q.outcome) filter.outcome = q.outcome;
  const from = instant(q.from, 'from');
  const to = instant(q.to, 'to');
  if (from) filter.from = from;
  if (to) filter.to = to;
  if (before !== undefined) filter.before = before;
  return filter;
}
