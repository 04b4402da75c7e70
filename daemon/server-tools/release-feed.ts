// The release feed (BERTH_RELEASE_FEED): a URL answering `{"version": "1.2.3", "url": "https://..."}`
// for the newest release. Asked at most hourly by core (core/server-upgrade.ts), here bounded: 5 s,
// 64 KiB, JSON only. What it answers is checked by core; a failure is a reason, never a crash.
import type { ReleaseFeedPort } from '../core/ports/upgrader.js';

const TIMEOUT_MS = 5_000;
const MAX_BYTES = 64 * 1024;

export class ReleaseFeed implements ReleaseFeedPort {
  constructor(readonly url: string | null) {}

  async fetch(): Promise<unknown> {
    if (this.url === null) throw new Error('no release feed is configured');
    const res = await fetch(this.url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' }, redirect: 'follow' });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`answered HTTP ${res.status}`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = res.body?.getReader();
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      size += next.value.byteLength;
      if (size > MAX_BYTES) {
        await reader?.cancel();
        throw new Error(`the answer is larger than ${MAX_BYTES / 1024} KiB`);
      }
      chunks.push(next.value);
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch {
      throw new Error('the answer is not JSON');
    }
  }
}
