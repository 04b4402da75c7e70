// The open Server-Sent Events streams, per key: at most MAX_STREAMS_PER_KEY each (the next answers
// 429 too_many_streams), and every stream re-checked whenever stored data changes, so that a
// stream ends when its key is revoked or what it shows leaves the key's projects (a service moved
// to another project, deleted). A client that stops reading is handled in sse.ts.
import { TooMany } from '../core/errors.js';

export const MAX_STREAMS_PER_KEY = 20;
const RECHECK_MS = 500;

interface OpenStream {
  /** Whether the key still exists and may still see what the stream shows. */
  stillAllowed: () => Promise<boolean>;
  close: () => void;
  /** The console session it was opened with (a hash of its secret), null for a Bearer key. */
  sessionHash: string | null;
}

export class SseStreams {
  private byKey = new Map<string, Set<OpenStream>>();
  private seenVersion: string;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  /** Streams dropped because their client stopped reading (sse.ts). */
  slowReadersDropped = 0;

  constructor(
    private version: () => string,
    private log: (message: string, err?: unknown) => void,
    readonly maxPerKey = MAX_STREAMS_PER_KEY,
  ) {
    this.seenVersion = version();
  }

  /** Throws TooMany when the key holds its share of streams already. */
  admit(keyId: string): void {
    if ((this.byKey.get(keyId)?.size ?? 0) >= this.maxPerKey) {
      throw new TooMany(`this key has ${this.maxPerKey} event streams open already (the cap per key); close one first`, 'too_many_streams');
    }
  }

  /** Counts the stream against its key until `onClosed`'s returned function runs. */
  add(keyId: string, stream: OpenStream): () => void {
    const set = this.byKey.get(keyId) ?? new Set();
    set.add(stream);
    this.byKey.set(keyId, set);
    this.ensureTimer();
    return () => {
      set.delete(stream);
      if (set.size === 0) this.byKey.delete(keyId);
      if (this.byKey.size === 0) this.stopTimer();
    };
  }

  /** Open streams of one key (all keys when none is given). */
  count(keyId?: string): number {
    if (keyId !== undefined) return this.byKey.get(keyId)?.size ?? 0;
    let n = 0;
    for (const set of this.byKey.values()) n += set.size;
    return n;
  }

  /** Ends a key's streams at once (revoked through the API; the re-check would end them too). */
  closeKey(keyId: string): void {
    for (const s of [...(this.byKey.get(keyId) ?? [])]) s.close();
  }

  /** Ends the streams a console session opened (sign-out). */
  closeSession(sessionHash: string): void {
    for (const set of [...this.byKey.values()]) for (const s of [...set]) if (s.sessionHash === sessionHash) s.close();
  }

  closeAll(): void {
    for (const set of [...this.byKey.values()]) for (const s of [...set]) s.close();
    this.stopTimer();
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.recheck(), RECHECK_MS);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Only after a write: reads are served from the read cache, so a pass costs little. */
  private async recheck(): Promise<void> {
    if (this.checking) return;
    const now = this.version();
    if (now === this.seenVersion) return;
    this.seenVersion = now;
    this.checking = true;
    try {
      for (const set of [...this.byKey.values()]) {
        for (const s of [...set]) {
          const ok = await s.stillAllowed().catch((err: unknown) => {
            this.log('re-checking an event stream', err);
            return true;
          });
          if (!ok) s.close();
        }
      }
    } finally {
      this.checking = false;
    }
  }
}
