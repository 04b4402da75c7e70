// Log lines with ids, persisted in batches and published live. A line gets its id (increasing, one
// counter per table) when it is appended, reaches subscribers at once, and reaches SQLite within
// FLUSH_MS; `read` sees unflushed lines too, so a reader never misses one. Retention is enforced as
// lines are written (after each batch): an owner keeps its newest lines within a line and a byte
// budget, and build logs also within a budget per service over all its deployments, so a tenant's
// output cannot grow the store between the periodic trims.
import type { Clock } from '../core/clock.js';
import type { LogLineRecord } from '../core/records.js';
import type { LogLineInsert, LogSize, LogsRepo, LogTable } from '../core/ports/store.js';

const FLUSH_MS = 100;
const MAX_LINE = 16_384;
/** Characters appended and not yet written past which writers are asked to wait (see `busy`). */
const BACKLOG_CHARS = 1024 * 1024;

/** Owners whose written size is remembered (each costs one query when first seen again). */
const SIZES_KEPT = 10_000;
/** Build logs: bytes a deployment writes between two checks of its service's budget. */
const SERVICE_CHECK_BYTES = 256 * 1024;

export type LogListener = (line: LogLineRecord) => void;

export interface LogRetention {
  /** Per owner (a deployment's build log, a service's runtime log): its newest lines and bytes. */
  perOwner: LogSize;
  /** Build logs only: over every deployment of one service. */
  perService?: LogSize;
}

export class LogBook {
  private nextId = 0;
  /** Appended, not yet handed to a flush. */
  private pending: LogLineInsert[] = [];
  /** Handed to a flush whose write has not finished. */
  private writing: LogLineInsert[] = [];
  private listeners = new Map<string, Set<LogListener>>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** Characters of lines appended and not yet written. */
  private backlog = 0;
  private drained: { promise: Promise<void>; resolve: () => void } | null = null;
  /** Written size per owner, as far as this process knows it. */
  private sizes = new Map<string, LogSize>();
  /** Build logs: bytes written per deployment since its service's budget was checked. */
  private sinceServiceCheck = new Map<string, number>();

  constructor(
    private repo: LogsRepo,
    private table: LogTable,
    private clock: Clock,
    private onError: (err: unknown) => void,
    private retention: LogRetention | null = null,
  ) {}

  async init(): Promise<void> {
    this.nextId = (await this.repo.maxId(this.table)) + 1;
  }

  append(owner: string, deploymentId: string, text: string, stream: 'stdout' | 'stderr' = 'stdout'): LogLineRecord {
    const line = text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}... (line cut at ${MAX_LINE} characters)` : text;
    const record: LogLineInsert = { id: this.nextId++, line, stream, createdAt: this.clock.now(), owner, deploymentId };
    this.pending.push(record);
    this.backlog += line.length;
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
    const view = { id: record.id, line: record.line, stream: record.stream, createdAt: record.createdAt };
    for (const fn of this.listeners.get(owner) ?? []) fn(view);
    return view;
  }

  /**
   * A promise when more is waiting to be written than the book should hold (it resolves once
   * writes caught up), else null. A source that can wait (a container's log, a build's output)
   * stops reading meanwhile instead of piling lines up in memory.
   */
  busy(): Promise<void> | null {
    if (this.backlog < BACKLOG_CHARS) return null;
    if (!this.drained) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      this.drained = { promise, resolve };
    }
    void this.flush();
    return this.drained.promise;
  }

  subscribe(owner: string, fn: LogListener): () => void {
    const set = this.listeners.get(owner) ?? new Set();
    set.add(fn);
    this.listeners.set(owner, set);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(owner);
    };
  }

  /** Lines of `owner` with id > afterId, oldest first, flushed or not. */
  async read(owner: string, afterId: number, limit = 10_000): Promise<LogLineRecord[]> {
    // A flush may finish during the query: lines pending before it are either in that copy or,
    // once written, in the rows; both are merged, so none falls between the two.
    const before = this.pendingOf(owner);
    const stored = await this.repo.list(this.table, owner, afterId, limit);
    return merge(
      stored,
      [...before, ...this.pendingOf(owner)].filter((l) => l.id > afterId),
    ).slice(0, limit);
  }

  /** The newest `limit` lines of `owner` with id < beforeId, oldest first, flushed or not. */
  async before(owner: string, beforeId: number, limit: number): Promise<LogLineRecord[]> {
    const pendingBefore = this.pendingOf(owner);
    const stored = await this.repo.before(this.table, owner, beforeId, limit);
    return merge(
      stored,
      [...pendingBefore, ...this.pendingOf(owner)].filter((l) => l.id < beforeId),
    ).slice(-limit);
  }

  /** The newest `n` lines of `owner`, oldest first. */
  async tail(owner: string, n: number): Promise<LogLineRecord[]> {
    const before = this.pendingOf(owner);
    const stored = await this.repo.tail(this.table, owner, n);
    return merge(stored, [...before, ...this.pendingOf(owner)]).slice(-n);
  }

  /** The newest `n` lines of `owner` written for one deployment (runtime lines carry it), oldest first. */
  async tailOfDeployment(owner: string, deploymentId: string, n: number): Promise<LogLineRecord[]> {
    const before = this.pendingOf(owner, deploymentId);
    const stored = await this.repo.tailOfDeployment(this.table, owner, deploymentId, n);
    return merge(stored, [...before, ...this.pendingOf(owner, deploymentId)]).slice(-n);
  }

  private pendingOf(owner: string, deploymentId?: string): LogLineRecord[] {
    return [...this.writing, ...this.pending]
      .filter((l) => l.owner === owner && (deploymentId === undefined || l.deploymentId === deploymentId))
      .map((l) => ({ id: l.id, line: l.line, stream: l.stream, createdAt: l.createdAt }));
  }

  /** Writes what is pending; flushes run one after another, each line in exactly one of them. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    if (batch.length === 0) return this.flushing;
    this.pending = [];
    this.writing.push(...batch);
    this.flushing = this.flushing.then(async () => {
      try {
        await this.repo.insert(this.table, batch);
      } catch {
        // One bad line (its deployment deleted meanwhile) must not cost the others: write one by one.
        for (const line of batch) await this.repo.insert(this.table, [line]).catch((err: unknown) => this.onError(err));
      } finally {
        const written = new Set(batch);
        this.writing = this.writing.filter((l) => !written.has(l));
        for (const l of batch) this.backlog -= l.line.length;
        if (this.drained && this.backlog < BACKLOG_CHARS / 2) {
          this.drained.resolve();
          this.drained = null;
        }
      }
      await this.enforceRetention(batch).catch((err: unknown) => this.onError(err));
    });
    return this.flushing;
  }

  /** Trims the owners of a written batch back to their budgets (see LogRetention). */
  private async enforceRetention(batch: readonly LogLineInsert[]): Promise<void> {
    const r = this.retention;
    if (!r) return;
    const added = new Map<string, LogSize>();
    for (const l of batch) {
      const a = added.get(l.owner) ?? { lines: 0, bytes: 0 };
      a.lines += 1;
      a.bytes += Buffer.byteLength(l.line);
      added.set(l.owner, a);
    }
    if (this.sizes.size > SIZES_KEPT) this.sizes.clear();
    for (const [owner, a] of added) {
      const known = this.sizes.get(owner);
      // first seen: read its size (this batch included); then add what each batch writes
      let size = known ? { lines: known.lines + a.lines, bytes: known.bytes + a.bytes } : await this.repo.sizeOf(this.table, owner);
      if (size.lines > r.perOwner.lines || size.bytes > r.perOwner.bytes) size = await this.repo.trimOwner(this.table, owner, r.perOwner);
      this.sizes.set(owner, size);
      if (r.perService && this.table === 'deployment_logs') {
        // checked when a deployment first writes, then after every SERVICE_CHECK_BYTES it writes
        const since = (this.sinceServiceCheck.get(owner) ?? SERVICE_CHECK_BYTES) + a.bytes;
        if (since >= SERVICE_CHECK_BYTES) {
          if ((await this.repo.trimServiceBuildLogs(owner, r.perService)) > 0) this.sizes.delete(owner);
          this.sinceServiceCheck.set(owner, 0);
        } else this.sinceServiceCheck.set(owner, since);
        if (this.sinceServiceCheck.size > SIZES_KEPT) this.sinceServiceCheck.clear();
      }
    }
  }
}

function merge(a: LogLineRecord[], b: LogLineRecord[]): LogLineRecord[] {
  const byId = new Map<number, LogLineRecord>();
  for (const l of [...a, ...b]) byId.set(l.id, l);
  return [...byId.values()].sort((x, y) => x.id - y.id);
}
