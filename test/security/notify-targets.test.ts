// A notification channel is a request the daemon makes from the host: pointed at loopback it
// reaches every tenant's published port and Caddy's admin API (a POST there rewrites the proxy),
// at 169.254.169.254 the cloud metadata service. By default such channels are refused (400, nothing
// stored); the system setting allowPrivateNotifyTargets lets loopback receivers in, never Caddy's
// admin API; and a channel created while allowed is not delivered once the setting is off again.
// The daemon and its Caddy are real; the receiver is a local HTTP server.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('hostile targets: notification channels refuse loopback, link-local and the Caddy admin API', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let http: Server;
  let port: number;
  let caddyAdmin: string;
  const received: string[] = [];

  before(async () => {
    http = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.url ?? '');
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    port = (http.address() as AddressInfo).port;
    t = await startTestDaemon();
    caddyAdmin = t.caddy!.adminUrl;
  });
  after(async () => {
    await t?.stop();
    await new Promise((r) => http?.close(r));
  });

  const create = (body: Record<string, unknown>) => t.admin.request('POST', '/api/system/notifications', { name: 'n', events: ['deployment_failed'], ...body });
  const setAllowed = async (value: unknown) => t.admin.request('PATCH', '/api/system/settings', { allowPrivateNotifyTargets: value });
  const channels = async () => (await t.admin.listNotificationChannels()).channels;

  it('the setting is off by default, and only a boolean sets it', async () => {
    const res = await t.admin.request('GET', '/api/system/settings');
    expect((res.body as { settings: Record<string, unknown> }).settings.allowPrivateNotifyTargets).to.equal(false);
    const bad = await setAllowed('yes');
    expect(bad.status).to.equal(400);
    expect(JSON.stringify(bad.body)).to.include('allowPrivateNotifyTargets');
  });

  it('by default refuses loopback, link-local, a name resolving to loopback and the Caddy admin API with 400, storing nothing', async () => {
    const targets: [Record<string, unknown>, RegExp][] = [
      [{ type: 'webhook', url: `http://127.0.0.1:${port}/hook` }, /loopback.*allowPrivateNotifyTargets/],
      [{ type: 'slack', url: 'http://169.254.169.254/latest/meta-data/' }, /link-local.*allowPrivateNotifyTargets/],
      [{ type: 'discord', url: `http://localhost:${port}/hook` }, /localhost.*loopback.*allowPrivateNotifyTargets/],
      [{ type: 'webhook', url: `http://[::1]:${port}/hook` }, /loopback/],
      [{ type: 'webhook', url: `http://[::ffff:127.0.0.1]:${port}/hook` }, /loopback/],
      [{ type: 'webhook', url: `${caddyAdmin}/load` }, /Caddy's admin API/],
      [{ type: 'email', host: 'localhost', port: 25, from: 'a@example.com', to: ['b@example.com'] }, /loopback.*allowPrivateNotifyTargets/],
    ];
    for (const [body, message] of targets) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect((res.body as { error: { message: string } }).error.message).to.match(message);
    }
    expect(await channels()).to.deep.equal([]);
  });

  it('with the setting on, a loopback receiver is accepted and gets a test notice; the Caddy admin API is still refused', async () => {
    expect((await setAllowed(true)).status).to.equal(200);
    const res = await create({ type: 'webhook', url: `http://127.0.0.1:${port}/allowed` });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const id = (res.body as { channel: { id: string } }).channel.id;
    const sent = await t.admin.testNotificationChannel(id);
    expect(sent.ok, sent.detail).to.equal(true);
    expect(received).to.include('/allowed');

    const caddy = await create({ type: 'webhook', url: `${caddyAdmin}/load` });
    expect(caddy.status).to.equal(400);
    expect((caddy.body as { error: { message: string } }).error.message).to.match(/Caddy's admin API/);
    // nor can an allowed channel be moved there
    const moved = await t.admin.request('PATCH', `/api/system/notifications/${id}`, { url: caddyAdmin.replace('127.0.0.1', 'localhost') + '/load' });
    expect(moved.status).to.equal(400);
    expect((await channels()).map((c) => c.target)).to.deep.equal([`http://127.0.0.1:${port}`]);
  });

  it('a channel created while allowed is not delivered once the setting is off, with a clear failure', async () => {
    const [channel] = await channels();
    expect((await setAllowed(false)).status).to.equal(200);
    const before = received.length;
    const sent = await t.admin.testNotificationChannel(channel!.id);
    expect(sent.ok).to.equal(false);
    expect(sent.detail).to.match(/loopback.*allowPrivateNotifyTargets/);
    expect(received.length).to.equal(before);
  });
});
