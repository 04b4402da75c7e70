// Server-Sent Events over a Koa response: `event:`, `id:` and `data:` lines, a ping on an
// interval, and clean-up when the client goes away.
import type { Context } from 'koa';
import { PassThrough } from 'node:stream';

export interface SseChannel {
  send(event: string, data: unknown, id?: number | string): void;
  close(): void;
  /** Runs when the client disconnects or the channel is closed. */
  onClose(fn: () => void): void;
  readonly closed: boolean;
}

export function openSse(ctx: Context, pingMs: number, lastId: () => number | string | undefined): SseChannel {
  const stream = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  ctx.body = stream;
  const closers: (() => void)[] = [];
  let closed = false;

  const channel: SseChannel = {
    send(event, data, id) {
      if (closed) return;
      const idLine = id !== undefined ? `id: ${id}\n` : '';
      stream.write(`event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
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
