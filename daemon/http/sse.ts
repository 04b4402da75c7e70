// Server-Sent Events over a Koa response: `event:`, `id:` and `data:` lines, a ping on an
// interval, and clean-up when the client goes away. Each stream counts against its key's cap
// (sse-streams.ts), and a client that stops reading is dropped once MAX_BUFFERED_BYTES wait for it,
// instead of the daemon buffering for it without bound.
import type { Context } from 'koa';
import { PassThrough } from 'node:stream';
import { accessOf } from './auth.js';
import type { SseStreams } from './sse-streams.js';

const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface SseGuard {
  streams: SseStreams;
  /** Re-checked after writes: false when the key is gone or may no longer see what is streamed. */
  stillAllowed: () => Promise<boolean>;
}

export interface SseChannel {
  send(event: string, data: unknown, id?: number | string): void;
  close(): void;
  /** Runs when the client disconnects or the channel is closed. */
  onClose(fn: () => void): void;
  readonly closed: boolean;
}

export function openSse(ctx: Context, pingMs: number, lastId: () => number | string | undefined, guard: SseGuard): SseChannel {
  const keyId = accessOf(ctx).key.id;
  guard.streams.admit(keyId);
  const stream = new PassThrough();
  const socket = ctx.req.socket;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  ctx.body = stream;
  const closers: (() => void)[] = [];
  let closed = false;
  let allowance = MAX_BUFFERED_BYTES;

  const channel: SseChannel = {
    send(event, data, id) {
      if (closed) return;
      const idLine = id !== undefined ? `id: ${id}\n` : '';
      const text = `event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`;
      // What still waits for this client: in the stream (its pipe to the socket paused) and in the
      // socket. The bound grows with the largest event sent, so that a large snapshot still reaches a
      // client that reads; one that does not is dropped and may come back with Last-Event-ID.
      if (stream.readableLength + stream.writableLength + socket.writableLength > allowance) {
        guard.streams.slowReadersDropped++;
        channel.close();
        socket.destroy();
        return;
      }
      allowance = Math.max(allowance, text.length + MAX_BUFFERED_BYTES);
      stream.write(text);
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(ping);
      for (const fn of closers.splice(0)) fn();
      stream.end();
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
    get closed() {
      return closed;
    },
  };
  const sessionHash = typeof ctx.state.sessionHash === 'string' ? ctx.state.sessionHash : null;
  closers.push(guard.streams.add(keyId, { stillAllowed: guard.stillAllowed, close: () => channel.close(), sessionHash }));
  const ping = setInterval(() => channel.send('ping', { t: Date.now() }, lastId()), pingMs);
  ctx.req.once('close', () => channel.close());
  stream.write(': connected\n\n');
  return channel;
}

/** The id a reconnecting client sends, as a number (0 when absent or not a number). */
export function lastEventId(ctx: Context): number {
  const raw = ctx.get('last-event-id') || (typeof ctx.query.lastEventId === 'string' ? ctx.query.lastEventId : '');
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
