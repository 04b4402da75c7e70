// A read cache over the whole store. The daemon answers most requests from memory: every read is
// memoised until the next write, and any write (from this process or another one, such as the
// `berth keys` CLI) invalidates everything. Cross-process writes are seen through a marker file
// that every writer appends to; a stat of it is microseconds, a query is not.
import { appendFileSync, statSync, truncateSync } from 'node:fs';
import type { Store } from '../core/ports/store.js';

/**
 * A repository method either only reads (memoised until the next write) or writes (never cached,
 * always invalidating). A `bookkeeping` write changes only its own repository's rows in a way no
 * other read and no cached answer depends on (a key's lastUsedAt): it drops that repository's
 * memoised reads and leaves the rest, and the store version, as they are. Otherwise every key's
 * once-a-minute touch would rebuild every cached answer (the 10,000-service list with it).
 * A `fresh` read always goes to the database and neither keeps nor drops anything.
 */
type MethodKind = 'read' | 'write' | 'bookkeeping' | 'fresh';
const REPOS = ['keys', 'projects', 'services', 'env', 'domains', 'deployments', 'settings'] as const;
type CachedRepo = (typeof REPOS)[number];

/**
 * Every method of every cached repository, declared read or write. The type makes the table
 * complete: a method added to a repository interface in core/ports/store.ts does not compile until it is
 * declared here, so nothing becomes cached (or uncached) by the accident of its name.
 */
export const METHOD_KINDS: { [N in CachedRepo]: { [M in keyof Store[N]]-?: MethodKind } } = {
  keys: { list: 'read', get: 'read', findByTokenHash: 'read', bootstrapKeyIds: 'read', insert: 'write', touch: 'bookkeeping', delete: 'write' },
  projects: { list: 'read', get: 'read', getBySlug: 'read', slugs: 'read', insert: 'write', update: 'write', deleteCascade: 'write' },
  services: {
    list: 'read',
    get: 'read',
    slugsInProject: 'read',
    namesInProject: 'read',
    usedHostPorts: 'read',
    withGeneratedLabel: 'read',
    withDatabaseHostname: 'read',
    insert: 'write',
    generatedName: 'read',
    generatedNames: 'read',
    assignGeneratedLabel: 'write',
    releaseGeneratedName: 'write',
    update: 'write',
    projectVolumes: 'read',
    deleteCascade: 'write',
  },
  env: { listByService: 'read', listByServices: 'read', upsert: 'write', delete: 'write' },
  domains: { listByServices: 'read', listAll: 'read', get: 'read', findByHostname: 'read', insert: 'write', update: 'write', delete: 'write' },
  // listByStatus reads the rows as they are now (reconciliation, the queue, the reachability watch).
  // It used to count as a write, so the watch's pass every 30 s started every cache over: with
  // 10,000 services, a rebuilt list and a full Caddy comparison twice a minute for nothing.
  deployments: { listByService: 'read', get: 'read', live: 'read', listByStatus: 'fresh', insert: 'write', update: 'write', setStatus: 'write' },
  settings: { get: 'read', getSealed: 'read', set: 'write', delete: 'write', setSealed: 'write' },
};
const MARKER_ROTATE_BYTES = 4096;
/**
 * Memoised reads kept at most; past it the cache starts over. Reads are keyed by their arguments,
 * so anything a client chooses (ids in paths) would otherwise add entries until the next write.
 */
export const MAX_CACHED_READS = 5000;
/** Reads whose misses are not kept: every request with an unknown bearer token asks once. */
const MISSES_NOT_KEPT = new Set(['keys.findByTokenHash']);

export interface CachedStore extends Store {
  /** Changes whenever the stored data may have changed; equal values mean equal data. */
  version(): string;
  /** How many reads are memoised now (bounded by MAX_CACHED_READS). */
  cachedReads(): number;
}

export function cachedStore(inner: Store, markerPath: string): CachedStore {
  let memo = new Map<string, Promise<unknown>>();
  let localWrites = 0;
  let seenMarker = markerStamp(markerPath);
  let checkedAt = 0;

  // At most one stat per millisecond: another process's write is seen within 1 ms, and a busy
  // daemon does not spend its time in stat(2).
  function checkExternal(): void {
    const now = Date.now();
    if (now === checkedAt) return;
    checkedAt = now;
    const stamp = markerStamp(markerPath);
    if (stamp !== seenMarker) {
      seenMarker = stamp;
      memo = new Map();
    }
  }

  function wrote(): void {
    localWrites++;
    memo = new Map();
    touchMarker(markerPath);
    seenMarker = markerStamp(markerPath);
  }

  function wrapRepo<R extends object>(name: CachedRepo, repo: R): R {
    const kinds: Record<string, MethodKind | undefined> = METHOD_KINDS[name];
    const wrapped: Record<string, unknown> = {};
    for (const [method, fn] of Object.entries(repo) as [string, (...args: unknown[]) => Promise<unknown>][]) {
      // an implementation's extra method, unknown to the interface, is treated as a write (the safe side)
      if (kinds[method] === 'read') {
        wrapped[method] = (...args: unknown[]) => {
          checkExternal();
          const key = `${name}.${method}:${argsKey(args)}`;
          let hit = memo.get(key);
          if (!hit) {
            if (memo.size >= MAX_CACHED_READS) memo = new Map();
            const table = memo;
            hit = fn.apply(repo, args);
            table.set(key, hit);
            const keepMiss = !MISSES_NOT_KEPT.has(`${name}.${method}`);
            hit.then(
              (value) => {
                if (!keepMiss && (value === null || value === undefined) && table.get(key) === hit) table.delete(key);
              },
              () => table.delete(key),
            );
          }
          return hit;
        };
      } else if (kinds[method] === 'fresh') {
        wrapped[method] = (...args: unknown[]) => fn.apply(repo, args);
      } else if (kinds[method] === 'bookkeeping') {
        wrapped[method] = async (...args: unknown[]) => {
          try {
            return await fn.apply(repo, args);
          } finally {
            for (const key of [...memo.keys()]) if (key.startsWith(`${name}.`)) memo.delete(key);
          }
        };
      } else {
        wrapped[method] = async (...args: unknown[]) => {
          try {
            return await fn.apply(repo, args);
          } finally {
            wrote();
          }
        };
      }
    }
    return wrapped as R;
  }

  const store = { ...inner } as Store;
  for (const name of REPOS) (store as unknown as Record<string, unknown>)[name] = wrapRepo(name, inner[name]);
  return {
    ...store,
    version: () => {
      checkExternal();
      return `${localWrites}:${seenMarker}`;
    },
    cachedReads: () => memo.size,
  };
}

/**
 * The memo key of a read's arguments. Trailing `undefined`s are left out: `list()` and
 * `list(undefined)` are the same read (JSON would make them `[]` and `[null]`), and two entries for
 * them held the 10,000-service list twice.
 */
function argsKey(args: readonly unknown[]): string {
  let n = args.length;
  while (n > 0 && args[n - 1] === undefined) n--;
  return JSON.stringify(n === args.length ? args : args.slice(0, n));
}

function markerStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'none';
  }
}

/** Appending changes size and mtime together, so two writes within one clock tick still differ. */
function touchMarker(path: string): void {
  appendFileSync(path, '.', { mode: 0o600 });
  if (statSync(path).size > MARKER_ROTATE_BYTES) truncateSync(path, 0);
}
