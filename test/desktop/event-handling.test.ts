// The main process's handling of event streams the daemons of this branch do not produce yet
// (`backup` events come with the delivery work; `node` events need a swarm with a worker to lose)
// and of connections that go quiet: a local HTTP server replays recorded Server-Sent Events text to the real EventStream and Notifier.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStream, type ConnectionState, type StreamEventMessage } from '../../desktop/main/event-stream.js';
import { Notifier } from '../../desktop/main/notifier.js';
import { closeBehaviour, worstState, type ServerView } from '../../desktop/main/tray-model.js';
import { until } from '../helpers/wait.js';
import { harness } from './harness.js';
import { notificationStandIn } from './stand-ins.js';

const RECORDED = [
  'id: 41\nevent: backup\ndata: {"backupId":"bk1","serviceId":"svc1","projectId":"p1","status":"started","at":"2026-11-24T06:00:00.000Z"}\n\n',
  ': ping\n\n',
  'id: 42\nevent: backup\ndata: {"backupId":"bk1","serviceId":"svc1","projectId":"p1","status":"failed","at":"2026-11-24T06:00:03.000Z"}\n\n',
  'id: 43\nevent: backup\ndata: {"backupId":"bk2","serviceId":"svc1","projectId":"p1","status":"succeeded","at":"2026-11-24T06:01:00.000Z"}\n\n',
].join('');

async function sseServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

describe('desktop event handling (recorded streams)', () => {
  const servers: Server[] = [];
  const streams: EventStream[] = [];
  afterEach(async () => {
    streams.splice(0).forEach((s) => s.stop());
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  /**
   * A Notifier fed by a real EventStream from `srv` (its handler ends each connection, so the
   * client reconnects and may get it all again) until `connections` were made: what it showed, and
   * the targets its notifications open.
   */
  async function notified(srv: Awaited<ReturnType<typeof sseServer>>, connections: number) {
    servers.push(srv.server);
    const notes = notificationStandIn();
    const opened: unknown[] = [];
    const notifier = new Notifier({ create: (c) => notes.create(c), open: (t) => opened.push(t), serverName: () => 'alpha', isMuted: () => false });
    const stream = new EventStream({
      url: srv.url,
      key: () => 'berth_k',
      fetch: (i, init) => fetch(i, init),
      onEvent: (e) => notifier.onEvent('s1', e),
      onState: (s) => notifier.onState('s1', s),
      backoffBaseMs: 50,
      backoffMaxMs: 100,
    });
    streams.push(stream);
    stream.start();
    await until(`${connections} connections`, async () => srv.requests.length >= connections, 5_000, 20);
    stream.stop();
    notifier.dispose();
    return { notes, opened };
  }

  it('a failed backup notifies once, even when a reconnect replays it; the reconnect sends Last-Event-ID', async () => {
    // each connection gets the recording, then the server ends it: the client reconnects and gets it again
    const srv = await sseServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(RECORDED);
    });
    servers.push(srv.server);
    const notes = notificationStandIn();
    const opened: unknown[] = [];
    const notifier = new Notifier({ create: (c) => notes.create(c), open: (t) => opened.push(t), serverName: () => 'alpha', isMuted: () => false });
    const events: StreamEventMessage[] = [];
    const stream = new EventStream({
      url: srv.url,
      key: () => 'berth_k',
      fetch: (i, init) => fetch(i, init),
      onEvent: (e) => {
        events.push(e);
        notifier.onEvent('s1', e);
      },
      onState: (s) => notifier.onState('s1', s),
      backoffBaseMs: 50,
      backoffMaxMs: 100,
    });
    streams.push(stream);
    stream.start();
    await until('three connections', async () => srv.requests.length >= 3, 5_000, 20);
    stream.stop();
    notifier.dispose();
    expect(srv.requests[0]!.headers['last-event-id']).to.equal(undefined);
    expect(srv.requests[1]!.headers['last-event-id']).to.equal('43');
    expect(srv.requests[0]!.headers.authorization).to.equal('Bearer berth_k');
    expect(events.filter((e) => e.event === 'backup').length).to.be.greaterThanOrEqual(6);
    expect(notes.shown.map((n) => n.title)).to.deep.equal(['Backup failed on alpha']);
    notes.shown[0]!.click();
    expect(opened).to.deep.equal([{ serverId: 's1', kind: 'backup', serviceId: 'svc1' }]);
  });

  it('a failed restore test notifies once per test, even when a reconnect replays it; one failed again later notifies again', async () => {
    const verification = (id: number, status: string, at: string) =>
      `id: ${id}\nevent: backup-verification\ndata: {"backupId":"bk1","serviceId":"svc1","projectId":"p1","status":"${status}","at":"${at}"}\n\n`;
    let connections = 0;
    const srv = await sseServer((_req, res) => {
      connections += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const first = verification(61, 'running', '2026-11-24T07:00:00.000Z') + verification(62, 'failed', '2026-11-24T07:00:09.000Z') + verification(63, 'verified', '2026-11-24T07:01:00.000Z');
      res.end(connections < 3 ? first : first + verification(64, 'running', '2026-11-25T07:00:00.000Z') + verification(65, 'failed', '2026-11-25T07:00:05.000Z'));
    });
    const { notes, opened } = await notified(srv, 4);
    expect(notes.shown.map((n) => n.title)).to.deep.equal(['Restore test failed on alpha', 'Restore test failed on alpha']);
    notes.shown[0]!.click();
    expect(opened).to.deep.equal([{ serverId: 's1', kind: 'backup', serviceId: 'svc1' }]);
  });

  it('an uptime incident notifies once when it opens and once when it is resolved, whatever reconnects replay; clicking opens the Uptime tab', async () => {
    const incident = (id: number, state: string) =>
      `id: ${id}\nevent: incident\ndata: {"incidentId":"inc1","checkId":"c1","serviceId":"svc1","projectId":"p1","state":"${state}","at":"2026-11-29T05:00:0${id % 10}.000Z"}\n\n`;
    const srv = await sseServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(incident(71, 'opened') + incident(72, 'resolved'));
    });
    const { notes, opened } = await notified(srv, 3);
    expect(notes.shown.map((n) => n.title)).to.deep.equal(['A service is down on alpha', 'A service is back up on alpha']);
    notes.shown[0]!.click();
    expect(opened).to.deep.equal([{ serverId: 's1', kind: 'uptime', serviceId: 'svc1' }]);
  });

  it("a metric alert notifies once when it fires and once when it resolves, whatever reconnects replay; clicking opens the service's Metrics tab or the server page", async () => {
    const alert = (id: number, data: Record<string, unknown>) => `id: ${id}\nevent: metric-alert\ndata: ${JSON.stringify(data)}\n\n`;
    const cpu = { alertKind: 'cpu', serviceId: 'svc1', projectId: 'p1', threshold: 80 };
    const srv = await sseServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        alert(81, { ...cpu, state: 'firing', value: 93.4, at: '2026-11-29T05:00:01.000Z' }) +
          alert(82, { alertKind: 'disk-full', serviceId: null, projectId: null, state: 'firing', value: 5.2, threshold: 24, at: '2026-11-29T05:00:02.000Z' }) +
          // not an alert this app knows, and a state that is not one: ignored
          alert(83, { ...cpu, alertKind: 'gpu', state: 'firing', value: 1, at: '2026-11-29T05:00:03.000Z' }) +
          alert(84, { ...cpu, state: 'exploded', value: 1, at: '2026-11-29T05:00:04.000Z' }) +
          alert(85, { ...cpu, state: 'resolved', value: 20, at: '2026-11-29T05:00:05.000Z' }),
      );
    });
    const { notes, opened } = await notified(srv, 3);
    expect(notes.shown.map((n) => `${n.title} | ${n.body}`)).to.deep.equal([
      'High CPU on alpha | A service stayed above its CPU threshold (93%, threshold 80%). Click to see its metrics.',
      'Disk filling up on alpha | At the current rate the disk is full in about 5 h. Click to see the server.',
      'CPU back to normal on alpha | A service is under its CPU threshold again.',
    ]);
    for (const n of notes.shown) n.click();
    expect(opened).to.deep.equal([
      { serverId: 's1', kind: 'metrics', serviceId: 'svc1' },
      { serverId: 's1', kind: 'metrics', serviceId: null },
      { serverId: 's1', kind: 'metrics', serviceId: 'svc1' },
    ]);
    const h = harness();
    h.app.openTarget({ serverId: 's1', kind: 'metrics', serviceId: 'svc1' });
    h.app.openTarget({ serverId: 's1', kind: 'metrics', serviceId: null });
    h.app.stop();
    expect(h.opened).to.deep.equal([
      { serverId: 's1', route: '/services/svc1/metrics' },
      { serverId: 's1', route: '/server' },
    ]);
  });

  it('a Swarm node going down notifies once per transition, not again for a repeat or a reconnect; clicking opens the nodes', async () => {
    const events = [
      [51, { nodeId: 'n1', hostname: 'node-b', state: 'ready', availability: 'active', action: 'updated' }],
      [52, { nodeId: 'n1', hostname: 'node-b', state: 'down', availability: 'active', action: 'updated' }],
      // still down (its availability changed): no new transition
      [53, { nodeId: 'n1', hostname: 'node-b', state: 'down', availability: 'drain', action: 'updated' }],
      [54, { nodeId: 'n2', hostname: 'node-c', state: 'down', availability: 'active', action: 'updated' }],
      [55, { nodeId: 'n1', hostname: 'node-b', state: 'ready', availability: 'active', action: 'updated' }],
      [56, { nodeId: 'n1', hostname: 'node-b', state: 'down', availability: 'active', action: 'updated' }],
    ] as const;
    // like the daemon, each connection sends what follows Last-Event-ID, then this one ends it
    const srv = await sseServer((req, res) => {
      const after = Number(req.headers['last-event-id'] ?? 0);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        events
          .filter(([id]) => id > after)
          .map(([id, data]) => `id: ${id}\nevent: node\ndata: ${JSON.stringify(data)}\n\n`)
          .join('') || ': nothing new\n\n',
      );
    });
    const { notes, opened } = await notified(srv, 3);
    expect(notes.shown.map((n) => n.title)).to.deep.equal(['Node node-b is down on alpha', 'Node node-c is down on alpha', 'Node node-b is down on alpha']);
    notes.shown[0]!.click();
    expect(opened).to.deep.equal([{ serverId: 's1', kind: 'nodes' }]);
  });

  it('a connection silent past the heartbeat timeout is dropped and the server shown offline', async () => {
    const srv = await sseServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\n'); // then nothing, not even pings
    });
    servers.push(srv.server);
    const states: ConnectionState[] = [];
    const stream = new EventStream({
      url: srv.url,
      key: () => 'k',
      fetch: (i, init) => fetch(i, init),
      onEvent: () => undefined,
      onState: (s) => states.push(s),
      heartbeatMs: 300,
      backoffBaseMs: 5_000,
    });
    streams.push(stream);
    stream.start();
    await until('offline', async () => stream.state.status === 'offline', 3_000, 20);
    expect(states.map((s) => s.status)).to.deep.equal(['online', 'offline']);
    expect(stream.state.error).to.equal('no heartbeat for 300 ms');
  });

  it('an unreachable server is offline "since" its first failure and never shown connected', async () => {
    const srv = await sseServer(() => undefined);
    servers.push(srv.server);
    const url = srv.url;
    srv.server.close();
    servers.pop();
    const states: ConnectionState[] = [];
    const stream = new EventStream({ url, key: () => 'k', fetch: (i, init) => fetch(i, init), onEvent: () => undefined, onState: (s) => states.push(s), backoffBaseMs: 20, backoffMaxMs: 40 });
    streams.push(stream);
    stream.start();
    await until('three failures', async () => states.length >= 3, 5_000, 20);
    expect(states.every((s) => s.status === 'offline')).to.equal(true);
    expect(new Set(states.map((s) => s.since)).size).to.equal(1);
    expect(states[0]!.error).to.include('ECONNREFUSED');
  });

  it('notifications are rate-limited: the rest are summed up once the window frees', async () => {
    const notes = notificationStandIn();
    const notifier = new Notifier({ create: (c) => notes.create(c), open: () => undefined, serverName: () => 'alpha', isMuted: () => false, rateLimit: { max: 2, windowMs: 300 } });
    for (let i = 0; i < 5; i++) notifier.onEvent('s1', { event: 'deployment', data: { deploymentId: `d${i}`, serviceId: 'x', status: 'failed' } });
    expect(notes.shown.length).to.equal(2);
    await until('the summary', async () => notes.shown.length === 3, 2_000, 20);
    expect(notes.shown[2]!.title).to.equal('3 more Berth notifications');
    notifier.dispose();
  });

  it('the tray shows the worst state; without a tray, closing the window minimises and says so', () => {
    const view = (status: ConnectionState['status'], services: Record<string, string> = {}): ServerView => ({
      id: status,
      name: status,
      colour: '#000000',
      muted: false,
      connection: { status },
      services,
    });
    expect(worstState([])).to.equal('none');
    expect(worstState([view('online'), view('online', { a: 'building' })])).to.equal('building');
    expect(worstState([view('online', { a: 'building' }), view('offline')])).to.equal('offline');
    expect(worstState([view('offline'), view('online', { a: 'failed', b: 'active' })])).to.equal('failed');
    expect(closeBehaviour(true).action).to.equal('hide');
    const none = closeBehaviour(false);
    expect(none.action).to.equal('minimize');
    expect(none.message).to.include('no tray');
  });
});
