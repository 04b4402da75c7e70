// A hostile server (or a proxy in front of one) answering an event stream with a line that never
// ends, or with data lines that never make an event: the CLI's client and the desktop app's
// `/api/events` reader stop with a clear error once an event passes the cap, and read only about
// that much, instead of buffering whatever the server sends until the process runs out of memory.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BerthClient } from '../../shared/client.js';
import { SSE_MAX_EVENT_CHARS, SSE_SMALL_EVENT_CHARS, SseTooLargeError, type SseEvent } from '../../shared/sse.js';
import { EventStream, type ConnectionState } from '../../desktop/main/event-stream.js';
import { until } from '../helpers/wait.js';

/** What the hostile server sends at most before ending the response (an unbounded reader takes all of it). */
const HOSTILE_BYTES = 32 * 1024 * 1024;
/** A reader still going after this long neither stopped nor failed: it is aborted and the test fails. */
const READ_DEADLINE_MS = 30_000;
const CHUNK = 64 * 1024;

interface Hostile {
  url: string;
  /** Bytes written to the current (last) response before it ended or its client went away. */
  sent(): number;
  /** True once the last response's client closed the connection. */
  clientGone(): boolean;
  close(): Promise<void>;
}

/** An event-stream server whose every response is `head` followed by `piece` repeated up to HOSTILE_BYTES. */
async function hostileServer(head: string, piece: string): Promise<Hostile> {
  let sent = 0;
  let gone = false;
  const server: Server = createServer((req, res) => {
    sent = 0;
    gone = false;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(head);
    const chunk = Buffer.from(piece.repeat(Math.ceil(CHUNK / piece.length)));
    res.on('close', () => (gone = true));
    const pump = () => {
      while (!gone && sent < HOSTILE_BYTES) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!gone) res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => sent,
    clientGone: () => gone,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readAll(open: (signal: AbortSignal) => AsyncGenerator<SseEvent>): Promise<{ events: SseEvent[]; error: unknown }> {
  const events: SseEvent[] = [];
  const signal = AbortSignal.timeout(READ_DEADLINE_MS);
  try {
    for await (const e of open(signal)) events.push(e);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

describe('security: event-stream readers cap what one event may hold', function () {
  this.timeout(READ_DEADLINE_MS + 20_000);
  const servers: Hostile[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });

  it('a log stream whose line never ends stops the CLI client with a clear error after about the cap', async () => {
    const srv = await hostileServer('event: snapshot\ndata: ', 'x');
    servers.push(srv);
    const client = new BerthClient(srv.url, 'k');
    const rssBefore = process.memoryUsage().rss;
    const { events, error } = await readAll((signal) => client.deploymentStream('d1', { signal }));
    expect(events).to.deep.equal([]);
    expect(error).to.be.instanceOf(SseTooLargeError);
    expect((error as Error).message).to.match(/over 16777216 characters; the stream was stopped/);
    await until('the client closed the connection', async () => srv.clientGone() || null, 5_000, 20);
    // it read about the cap (plus what was in flight), not the server's 32 MiB
    expect(srv.sent()).to.be.below(SSE_MAX_EVENT_CHARS + 8 * 1024 * 1024);
    expect(process.memoryUsage().rss - rssBefore).to.be.below(200 * 1024 * 1024);
  });

  it('data lines that never end an event stop the reader the same way', async () => {
    const srv = await hostileServer('event: log\n', 'data: 0123456789abcdef0123456789abcdef\n');
    servers.push(srv);
    const { events, error } = await readAll((signal) => new BerthClient(srv.url, 'k').runtimeLogStream('s1', { signal }));
    expect(events).to.deep.equal([]);
    expect(error).to.be.instanceOf(SseTooLargeError);
    expect(srv.sent()).to.be.below(SSE_MAX_EVENT_CHARS + 8 * 1024 * 1024);
  });

  it("the desktop app's /api/events reader goes offline saying why, after 1 MiB, and reads no more", async () => {
    const srv = await hostileServer('event: deployment\ndata: ', 'y');
    servers.push(srv);
    const states: ConnectionState[] = [];
    const stream = new EventStream({
      url: srv.url,
      key: () => 'k',
      fetch: (i, init) => fetch(i, init),
      onEvent: () => undefined,
      onState: (s) => states.push(s),
      backoffBaseMs: 60_000,
      backoffMaxMs: 60_000,
    });
    stream.start();
    try {
      const offline = await until('the stream went offline', async () => states.find((s) => s.status === 'offline') ?? null, 20_000, 20);
      expect(offline.error).to.equal(new SseTooLargeError(SSE_SMALL_EVENT_CHARS).message);
      await until('the reader closed the connection', async () => srv.clientGone() || null, 5_000, 20);
      expect(srv.sent()).to.be.below(SSE_SMALL_EVENT_CHARS + 8 * 1024 * 1024);
    } finally {
      stream.stop();
    }
  });

  it('events under the cap still arrive whole, CRLF split across chunks included', async () => {
    const big = 'z'.repeat(2 * 1024 * 1024);
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`id: 7\nevent: snapshot\ndata: ${big}\r`);
      setTimeout(() => res.end('\n\r\nevent: end\ndata: {"status":"running"}\n\n'), 50);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { events, error } = await readAll((signal) => new BerthClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'k').deploymentStream('d', { signal }));
      expect(error).to.equal(null);
      expect(events.map((e) => [e.event, e.data.length, e.id])).to.deep.equal([
        ['snapshot', big.length, '7'],
        ['end', 20, '7'],
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
