// Log lines with ids, persisted in batches and published live. A line gets its id (increasing, one
// counter per table) when it is appended, reaches subscribers at once, and reaches SQLite within
// FLUSH_MS; `read` sees unflushed lines too, so a reader never misses one.
import type { Clock } from '../core/clock.js';
import type { LogLineRecord } from '../core/records.js';
import type { LogLineInsert, LogsRepo, LogTable } from '../core/store.js';

const FLUSH_MS = 100;
const MAX_LINE = 16_384;
/** Characters appended and not yet written past which writers are asked to wait (see `busy`). */
const BACKLOG_CHARS = 1024 * 1024;

export type LogListener = (line: LogLineRecord) => void;

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

  constructor(
    private repo: LogsRepo,
    private table: LogTable,
    private clock: Clock,
    private onError: (err: unknown) => void,
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
    return merge(stored, [...before, ...this.pendingOf(owner)].filter((l) => l.id > afterId)).slice(0, limit);
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
    });
    return this.flushing;
  }
}

function merge(a: LogLineRecord[], b: LogLineRecord[]): LogLineRecord[] {
  const byId = new Map<number, LogLineRecord>();
  for (const l of [...a, ...b]) byId.set(l.id, l);
  return [...byId.values()].sort((x, y) => x.id - y.id);
}
