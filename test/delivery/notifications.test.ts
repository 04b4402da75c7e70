// Notification channels against local receivers: an HTTP server standing in for a generic webhook
// endpoint, Slack's and Discord's incoming webhooks, and a real SMTP server (smtp-server). A failed
// deployment reaches every channel that chose `deployment_failed` (and no other); the generic
// webhook's signature verifies with its secret; a receiver that fails once gets the retry; the
// test endpoint sends now; a channel changed with PATCH keeps what was not named (a webhook its
// secret); channels created at once are all kept; secrets are sealed at rest and never shown.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld } from '../helpers/fixtures.js';
import { startLoginSmtp } from '../helpers/smtp.js';
import { until, waitForDeployment } from '../helpers/wait.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('notification channels (local receivers)', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let http: Server;
  let smtp: SMTPServer;
  let httpPort: number;
  let smtpPort: number;
  const received: Received[] = [];
  const mails: { from: string; to: string[]; raw: string }[] = [];
  let flakyFailures = 1;
  let webhookSecret: string;
  const ids: Record<string, string> = {};

  before(async () => {
    http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/flaky' && flakyFailures-- > 0) {
          res.writeHead(500).end('try again');
          return;
        }
        received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    httpPort = (http.address() as AddressInfo).port;
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    smtpPort = (smtp.server.address() as AddressInfo).port;
    // deployments fail at their first step, locally: nothing listens on port 9
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
    await allowLoopbackNotifyTargets(t.admin);
  });
  after(async () => {
    await t?.stop();
    await new Promise((r) => http?.close(r));
    await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
  });

  const url = (path: string) => `http://127.0.0.1:${httpPort}${path}`;

  it('creates channels of every type; the list shows no secret and the setting is sealed at rest', async () => {
    const make = async (body: Record<string, unknown>) => {
      const res = await t.admin.request('POST', '/api/system/notifications', body);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as { channel: { id: string }; secret?: string };
    };
    const hook = await make({ type: 'webhook', name: 'ops hook', url: url('/generic'), events: ['deployment_failed', 'backup_failed'] });
    webhookSecret = hook.secret!;
    expect(webhookSecret).to.match(/^[0-9a-f]{64}$/);
    ids.webhook = hook.channel.id;
    ids.slack = (await make({ type: 'slack', name: 'slack', url: url('/services/T000/B000/slacksecrettoken'), events: ['deployment_failed'] })).channel.id;
    ids.discord = (await make({ type: 'discord', name: 'discord', url: url('/api/webhooks/1/discordsecrettoken'), events: ['deployment_failed'] })).channel.id;
    ids.email = (await make({ type: 'email', name: 'mail', host: '127.0.0.1', port: smtpPort, from: 'berth@example.test', to: ['team@example.test'], events: ['deployment_failed'] })).channel.id;
    ids.flaky = (await make({ type: 'slack', name: 'flaky', url: url('/flaky'), events: ['deployment_failed'] })).channel.id;
    ids.successOnly = (await make({ type: 'discord', name: 'wins', url: url('/success-only'), events: ['deployment_succeeded'] })).channel.id;
    const list = await t.admin.request('GET', '/api/system/notifications');
    const text = JSON.stringify(list.body);
    for (const secret of [webhookSecret, 'slacksecrettoken', 'discordsecrettoken']) {
      expect(text).not.to.include(secret);
      expect(readFileSync(join(t.dataDir, 'berth.sqlite')).includes(Buffer.from(secret)), `${secret} at rest`).to.equal(false);
    }
    expect((list.body as { channels: unknown[] }).channels).to.have.length(6);
  });

  it('a failed deployment reaches every channel that chose it, once, with a verifiable signature; a failing receiver gets the retry', async () => {
    const w = await makeProjectWorld(t.admin);
    const { deployment } = await t.admin.deploy(w.web.id);
    await waitForDeployment(t.admin, w.web.id, deployment.id, ['failed'], 20_000);
    await until(
      'every receiver',
      async () =>
        ['/generic', '/services/T000/B000/slacksecrettoken', '/api/webhooks/1/discordsecrettoken', '/flaky'].every((p) => received.some((r) => r.path === p && r.body.includes(deployment.id))) &&
        mails.some((m) => m.raw.includes(deployment.id)),
      20_000,
    );
    const generic = received.find((r) => r.path === '/generic')!;
    const expected = `sha256=${createHmac('sha256', webhookSecret).update(generic.body).digest('hex')}`;
    expect(generic.headers['x-berth-signature-256']).to.equal(expected);
    expect(generic.headers['x-berth-event']).to.equal('deployment_failed');
    expect(JSON.parse(generic.body)).to.include({ event: 'deployment_failed', deploymentId: deployment.id, serviceId: w.web.id, projectId: w.project.id, status: 'failed' });
    expect(JSON.parse(received.find((r) => r.path.startsWith('/services/'))!.body).text).to.match(/deployment of .* failed/);
    expect(JSON.parse(received.find((r) => r.path.startsWith('/api/webhooks/'))!.body).content).to.match(/deployment of .* failed/);
    const mail = mails.find((m) => m.raw.includes(deployment.id))!;
    expect(mail.to).to.deep.equal(['team@example.test']);
    expect(mail.raw).to.match(/Subject: Berth: deployment of .* failed/);
    expect(received.filter((r) => r.path === '/flaky')).to.have.length(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(received.filter((r) => r.path === '/generic' && r.body.includes(deployment.id))).to.have.length(1);
    expect(
      received.some((r) => r.path === '/success-only'),
      'a channel without deployment_failed',
    ).to.equal(false);
  });

  it('the test endpoint sends one notice now and says how it went; an unreachable receiver is reported, not a 500', async () => {
    const res = await t.admin.request('POST', `/api/system/notifications/${ids.slack}/test`);
    expect(res.body).to.deep.equal({ ok: true, detail: 'delivered' });
    expect(received.some((r) => r.path.startsWith('/services/') && r.body.includes('test notification'))).to.equal(true);
    const dead = await t.admin.request('POST', '/api/system/notifications', { type: 'discord', name: 'dead', url: 'http://127.0.0.1:9/x', events: ['deployment_failed'] });
    const id = (dead.body as { channel: { id: string } }).channel.id;
    const tried = await t.admin.request('POST', `/api/system/notifications/${id}/test`);
    expect(tried.status).to.equal(200);
    expect(tried.body).to.include({ ok: false });
    expect((tried.body as { detail: string }).detail, "port 9 is on fetch's blocked list").to.match(/fetch refuses this port/);
    expect(JSON.stringify(tried.body)).not.to.include('127.0.0.1:9/x');
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const refusing = await t.admin.request('POST', '/api/system/notifications', {
      type: 'slack',
      name: 'closed',
      url: `http://127.0.0.1:${closed}/services/T/B/secrettoken`,
      events: ['deployment_failed'],
    });
    const refusingId = (refusing.body as { channel: { id: string } }).channel.id;
    const refused = await t.admin.request('POST', `/api/system/notifications/${refusingId}/test`);
    expect(refused.body).to.deep.equal({ ok: false, detail: 'the request failed (ECONNREFUSED)' });
    expect((await t.admin.request('DELETE', `/api/system/notifications/${refusingId}`)).status).to.equal(200);
    expect((await t.admin.request('DELETE', `/api/system/notifications/${id}`)).status).to.equal(200);
    expect((await t.admin.request('POST', `/api/system/notifications/${id}/test`)).status).to.equal(404);
  });

  it('PATCH changes what it names and keeps the rest: the webhook keeps its secret, the e-mail its password unless cleared; fields of another type, an empty patch or an unknown channel change nothing', async () => {
    const list = async () => (await t.admin.request('GET', '/api/system/notifications')).body as { channels: { id: string; name: string; events: string[]; target: string }[] };
    const patch = (id: string, body: unknown) => t.admin.request('PATCH', `/api/system/notifications/${id}`, body);
    const moved = await patch(ids.webhook!, { name: 'ops hook (moved)', url: url('/moved'), events: ['deployment_failed', 'deployment_failed'] });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect((moved.body as { channel: unknown }).channel).to.deep.include({ id: ids.webhook, name: 'ops hook (moved)', type: 'webhook', events: ['deployment_failed'] });
    expect(JSON.stringify(moved.body)).not.to.include(webhookSecret);
    const tested = await t.admin.request('POST', `/api/system/notifications/${ids.webhook}/test`);
    expect(tested.body).to.deep.include({ ok: true });
    const sent = received.filter((r) => r.path === '/moved').at(-1)!;
    expect(sent.headers['x-berth-signature-256'], 'signed with the secret given at creation').to.equal(`sha256=${createHmac('sha256', webhookSecret).update(sent.body).digest('hex')}`);

    for (const [id, bad] of [
      [ids.webhook!, { host: 'smtp.example.test' }],
      [ids.email!, { url: url('/x') }],
      [ids.webhook!, {}],
      [ids.webhook!, { type: 'slack' }],
      [ids.webhook!, { events: [] }],
      [ids.webhook!, { url: 'ftp://example.test/' }],
    ] as const) {
      const res = await patch(id, bad);
      expect(res.status, JSON.stringify(bad)).to.equal(400);
    }
    expect((await patch('no-such-channel', { name: 'x' })).status).to.equal(404);
    expect((await list()).channels.find((c) => c.id === ids.webhook)).to.deep.include({ name: 'ops hook (moved)', target: `http://127.0.0.1:${httpPort}` });

    // the e-mail channel: authenticating needs the password, so a kept password is seen by the SMTP server
    const authSmtp = await startLoginSmtp();
    try {
      const authPort = authSmtp.port;
      expect((await patch(ids.email!, { port: authPort, username: 'mailer', password: 'smtp-pass-1' })).status).to.equal(200);
      expect((await patch(ids.email!, { to: ['ops@example.test'] })).status).to.equal(200);
      expect((await t.admin.request('POST', `/api/system/notifications/${ids.email}/test`)).body).to.deep.include({ ok: true });
      expect(authSmtp.logins.at(-1)).to.deep.equal({ username: 'mailer', password: 'smtp-pass-1' });
      expect((await list()).channels.find((c) => c.id === ids.email)!.target).to.equal(`smtp://127.0.0.1:${authPort} to ops@example.test`);
      expect(readFileSync(join(t.dataDir, 'berth.sqlite')).includes(Buffer.from('smtp-pass-1')), 'the password at rest').to.equal(false);
      // cleared: the server, which asks for no login, now gets none
      const count = authSmtp.logins.length;
      expect((await patch(ids.email!, { username: null, password: null, port: smtpPort })).status).to.equal(200);
      expect((await t.admin.request('POST', `/api/system/notifications/${ids.email}/test`)).body).to.deep.include({ ok: true });
      expect(authSmtp.logins.length).to.equal(count);
    } finally {
      await authSmtp.close();
    }
  });

  it('channels created, changed and deleted at the same time are all kept as asked (one setting, no lost write)', async () => {
    const before = (await t.admin.request('GET', '/api/system/notifications')).body as { channels: { id: string }[] };
    const results = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => t.admin.request('POST', '/api/system/notifications', { type: 'slack', name: `burst ${i}`, url: url(`/burst/${i}`), events: ['deployment_failed'] })),
      t.admin.request('PATCH', `/api/system/notifications/${ids.slack}`, { name: 'slack (renamed in the burst)' }),
      t.admin.request('DELETE', `/api/system/notifications/${ids.successOnly}`),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(Array(14).fill(200));
    const after = ((await t.admin.request('GET', '/api/system/notifications')).body as { channels: { id: string; name: string }[] }).channels;
    expect(after).to.have.length(before.channels.length + 12 - 1);
    expect(
      after
        .filter((c) => c.name.startsWith('burst '))
        .map((c) => c.name)
        .sort(),
    ).to.deep.equal(Array.from({ length: 12 }, (_, i) => `burst ${i}`).sort());
    expect(after.find((c) => c.id === ids.slack)!.name).to.equal('slack (renamed in the burst)');
    expect(after.some((c) => c.id === ids.successOnly)).to.equal(false);
  });

  it('needs a write key over all projects; refuses bad input with 400', async () => {
    const w = await makeProjectWorld(t.admin);
    const scoped = await t.clientWith('write', [w.project.id]);
    const reader = await t.clientWith('read', 'all');
    const body = { type: 'slack', name: 'x', url: url('/x'), events: ['deployment_failed'] };
    expect((await scoped.request('GET', '/api/system/notifications')).status).to.equal(403);
    expect((await scoped.request('POST', '/api/system/notifications', body)).status).to.equal(403);
    expect((await reader.request('POST', '/api/system/notifications', body)).status).to.equal(403);
    expect((await t.anonymous.request('POST', '/api/system/notifications', body)).status).to.equal(401);
    expect((await scoped.request('PATCH', `/api/system/notifications/${ids.slack}`, { name: 'x' })).status).to.equal(403);
    expect((await reader.request('PATCH', `/api/system/notifications/${ids.slack}`, { name: 'x' })).status).to.equal(403);
    for (const bad of [
      { ...body, type: 'pager' },
      { ...body, url: 'file:///etc/passwd' },
      { ...body, events: [] },
      { ...body, events: ['everything'] },
      { ...body, extra: 1 },
      { type: 'email', name: 'm', host: 'h', port: 25, from: 'nope', to: ['a@b'], events: ['deployment_failed'] },
    ]) {
      expect((await t.admin.request('POST', '/api/system/notifications', bad)).status, JSON.stringify(bad)).to.equal(400);
    }
  });
});
