// Reads whose answers are large (a page of a build log, up to about 1 MiB) are limited per key:
// at most MAX_HEAVY_READS_PER_KEY in flight at once, the next answers 429 too_many_reads. With the
// page bound (core/log-pages.ts) this caps the memory one key's requests can pin in the daemon.
import { TooMany } from '../core/errors.js';

const MAX_HEAVY_READS_PER_KEY = 2;

export class HeavyReads {
  private inFlight = new Map<string, number>();

  constructor(readonly maxPerKey = MAX_HEAVY_READS_PER_KEY) {}

  /** Runs `read` in one of the key's slots; throws TooMany when they are all taken. */
  async run<T>(keyId: string, what: string, read: () => Promise<T>): Promise<T> {
    const n = this.inFlight.get(keyId) ?? 0;
    if (n >= this.maxPerKey) {
      throw new TooMany(`this key has ${this.maxPerKey} ${what} in flight already (the cap per key); wait for one to finish and try again`, 'too_many_reads');
    }
    this.inFlight.set(keyId, n + 1);
    try {
      return await read();
    } finally {
      const left = (this.inFlight.get(keyId) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(keyId);
      else this.inFlight.set(keyId, left);
    }
  }
}
