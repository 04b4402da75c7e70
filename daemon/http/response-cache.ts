// Serialised GET responses kept per store version. A read endpoint whose answer depends only on
// stored data and the caller's key scope builds its JSON once per change instead of once per
// request. Bounded; entries of an old version are simply never hit again and age out.
//
// Two things make a cached answer cheap to send again:
// - `answerCached` (a middleware right after authentication) answers a GET whose path, key scope
//   and store version already have an entry before the body parser and the router run: only the
//   route handler that made the entry could have answered it, with these same bytes.
// - a large body gets one gzip copy per entry, made off the main thread when a client first asks
//   for it and sent to every client that accepts gzip (browsers, fetch, curl --compressed); every
//   other client gets the plain bytes.
import type { Context, Next } from 'koa';
import { accessOf } from './auth.js';

/** Bodies at least this long get a gzip copy (smaller ones fit a packet or two as they are). */
const GZIP_MIN_BYTES = 2048;
/**
 * zlib's default level, measured on the 8.7 MB list of 10,000 services: level 1 makes 695 kB in
 * 14 ms, 4 619 kB in 24 ms, 6 541 kB in 32 ms, 9 512 kB in 52 ms. The copy is made once per store
 * version off the main thread and sent on every request: 22% fewer bytes than level 1 for 18 ms
 * more once.
 */
const GZIP_LEVEL = 6;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Above this size the plain bytes are dropped once the gzip copy exists, so an idle daemon does not
 * keep both (the 10,000-service list: 8.7 MB plain, 541 kB gzipped). A client without gzip, rare
 * for an answer this large, gets the copy unzipped again (~15 ms for that list).
 */
const PLAIN_KEPT_MAX = 1 << 20;

interface Entry {
  /** The plain bytes; null once dropped for the gzip copy (PLAIN_KEPT_MAX). */
  body: Buffer | null;
  /** Whether the body is large enough for a gzip copy. */
  compressible: boolean;
  /** The gzip copy, made for the first client that asks (null inside: compressing failed). */
  gzipped?: Promise<Buffer | null>;
  /** The gzip copy's size once made. */
  gzipBytes?: number;
  /** Dropped plain bytes unzipped again: shared while any answer still sends them, and while being made. */
  plainRef?: WeakRef<Buffer>;
  unzipping?: Promise<Buffer>;
}

/** zlib loads with the first answer that gets compressed: an idle daemon does not keep it. */
async function compress(body: Buffer): Promise<Buffer | null> {
  const { gzip } = await import('node:zlib');
  return new Promise((resolve) => gzip(body, { level: GZIP_LEVEL }, (err, out) => resolve(err ? null : out)));
}

async function gunzipped(body: Buffer): Promise<Buffer> {
  const { gunzip } = await import('node:zlib');
  return new Promise((resolve, reject) => gunzip(body, (err, out) => (err ? reject(err) : resolve(out))));
}

/** The request names gzip in Accept-Encoding with a non-zero weight. */
function acceptsGzip(ctx: Context): boolean {
  const header = ctx.get('accept-encoding');
  if (header === '' || !/gzip|\*/i.test(header)) return false;
  return ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
}

export class ResponseCache {
  private entries = new Map<string, Entry>();
  /** Answers being built now, by the same key. */
  private building = new Map<string, Promise<Entry>>();

  constructor(
    private readonly storeVersion: () => string,
    private readonly maxEntries = 256,
  ) {}

  /**
   * Everything an answer depends on besides the route: the store version (read before building, so
   * a cached body is never older than its key says), the key's access and project scope, the path.
   */
  private keyOf(ctx: Context): string {
    const key = accessOf(ctx).key;
    const projects = key.projects === 'all' ? 'all' : JSON.stringify(key.projects);
    return `${this.storeVersion()}|${key.access}|${projects}|${ctx.path}`;
  }

  /**
   * Answers `ctx` with the cached body for this path and key scope, building it on a miss. Requests
   * that miss while the same answer is being built wait for that build (10 clients asking for the
   * 10,000-service list at once build it once); a failed build is not kept, and they get its error.
   */
  async respond(ctx: Context, build: () => Promise<unknown>): Promise<void> {
    const key = this.keyOf(ctx);
    let entry = this.entries.get(key) ?? this.building.get(key);
    if (!entry) {
      const built = build().then((answer): Entry => {
        const body = Buffer.from(JSON.stringify(answer));
        return { body, compressible: body.length >= GZIP_MIN_BYTES };
      });
      this.building.set(key, built);
      try {
        entry = await built;
        if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
        this.entries.set(key, entry);
      } finally {
        this.building.delete(key);
      }
    }
    return this.send(ctx, await entry);
  }

  /** The bytes the cached answers hold now: plain bodies and gzip copies. */
  heldBytes(): number {
    let n = 0;
    for (const e of this.entries.values()) n += (e.body?.length ?? 0) + (e.gzipBytes ?? 0);
    return n;
  }

  /**
   * Middleware after authentication: a GET or HEAD that a route already answered for this same
   * path, key scope and store version gets that answer now; anything else goes on.
   */
  answerCached(): (ctx: Context, next: Next) => Promise<void> | void {
    return (ctx, next) => {
      if (this.entries.size === 0 || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
      if (ctx.state.access === undefined) return next(); // an open path (health): no key, nothing cached for it
      const entry = this.entries.get(this.keyOf(ctx));
      return entry === undefined ? next() : this.send(ctx, entry);
    };
  }

  private send(ctx: Context, entry: Entry): Promise<void> | void {
    // the type first: Koa then skips looking one up for a Buffer body
    ctx.set('Content-Type', JSON_TYPE);
    if (!entry.compressible) {
      ctx.body = entry.body!;
      return;
    }
    ctx.set('Vary', 'Accept-Encoding');
    if (!acceptsGzip(ctx)) {
      if (entry.body !== null) {
        ctx.body = entry.body;
        return;
      }
      return this.plainAgain(entry).then((plain) => void (ctx.body = plain));
    }
    return this.gzipCopy(entry).then((gzipped) => {
      if (gzipped === null) {
        ctx.body = entry.body!;
        return;
      }
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = gzipped;
    });
  }

  /**
   * Dropped plain bytes (only after a gzip copy was made, which therefore exists), unzipped once for
   * all the answers that need them at the same time: many clients without gzip asking at once hold
   * one copy, not one each.
   */
  private plainAgain(entry: Entry): Promise<Buffer> {
    const alive = entry.plainRef?.deref();
    if (alive) return Promise.resolve(alive);
    entry.unzipping ??= entry
      .gzipped!.then((gzipped) => gunzipped(gzipped!))
      .then((plain) => {
        entry.plainRef = new WeakRef(plain);
        return plain;
      })
      .finally(() => {
        entry.unzipping = undefined;
      });
    return entry.unzipping;
  }

  /** The entry's gzip copy, made once; a large entry then lets go of its plain bytes. */
  private gzipCopy(entry: Entry): Promise<Buffer | null> {
    entry.gzipped ??= compress(entry.body!).then((gzipped) => {
      if (gzipped !== null && entry.body!.length > PLAIN_KEPT_MAX) entry.body = null;
      entry.gzipBytes = gzipped?.length ?? 0;
      return gzipped;
    });
    return entry.gzipped;
  }
}
