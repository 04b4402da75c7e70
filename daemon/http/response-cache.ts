// Serialised GET responses kept per store version. A read endpoint whose answer depends only on
// stored data and the caller's key scope builds its JSON once per change instead of once per
// request. Bounded; entries of an old version are simply never hit again and age out.
import type { Context } from 'koa';
import { accessOf } from './auth.js';

export class ResponseCache {
  private entries = new Map<string, Buffer>();

  constructor(
    private readonly storeVersion: () => string,
    private readonly maxEntries = 256,
  ) {}

  /** Answers `ctx` with the cached body for this path and key scope, building it on a miss. */
  async respond(ctx: Context, build: () => Promise<unknown>): Promise<void> {
    // The version is read before building, so a cached body is never older than its key says.
    const key = `${this.storeVersion()}|${JSON.stringify(accessOf(ctx).key.projects)}|${ctx.path}`;
    let body = this.entries.get(key);
    if (!body) {
      body = Buffer.from(JSON.stringify(await build()));
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, body);
    }
    // the type first: Koa then skips looking one up for a Buffer body
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = body;
  }
}
