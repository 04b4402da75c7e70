// A tenant names its service (and its project, where it may rename it) with chat markup, then
// makes a deployment fail: the operator's Slack and Discord channels get the notice. The names
// must arrive as plain words: `<!everyone>`/`<!channel>`/`<@U123>` and `<https://evil|text>` are
// escaped as Slack entities (mrkdwn off), and a Discord message mentions nobody
// (`allowed_mentions: {parse: []}`) and carries no working `[text](url)` link or formatting.
// The daemon is real; the receivers are local HTTP servers standing in for Slack and Discord.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BerthClient } from '../../shared/client.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { until } from '../helpers/wait.js';

/** Under the 100 characters a service name may have. */
const HOSTILE = '<!everyone> <@U024BE7LH> <https://evil.example|Login> [Open](https://evil.example) @here *x*';

describe('hostile tenant: names in Slack and Discord notices are plain text', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let tenant: BerthClient;
  let http: Server;
  let port: number;
  const received: { path: string; body: string }[] = [];

  before(async () => {
    http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    port = (http.address() as AddressInfo).port;
    // deployments fail at their first step, locally: nothing listens on port 9
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
    await allowLoopbackNotifyTargets(t.admin);
    for (const [type, path] of [
      ['slack', '/services/T0/B0/secret'],
      ['discord', '/api/webhooks/1/secret'],
    ] as const) {
      const res = await t.admin.request('POST', '/api/system/notifications', { type, name: type, url: `http://127.0.0.1:${port}${path}`, events: ['deployment_failed'] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
    const projectId = (await t.admin.createProject({ name: uniq('chat') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    const { service } = await tenant.createService(projectId, { name: HOSTILE, repoFullName: 'evil/app', internalPort: 3000 });
    await tenant.deploy(service.id);
    await until('both notices', async () => received.length >= 2 || null, 30_000, 100);
  });
  after(async () => {
    await t?.stop();
    await new Promise((r) => http?.close(r));
  });

  it('Slack: mentions and links are escaped as entities, formatting is off', () => {
    const body = JSON.parse(received.find((r) => r.path.startsWith('/services/'))!.body) as { text: string; mrkdwn?: boolean };
    expect(body.text).to.match(/deployment of .* failed/);
    expect(body.text).not.to.include('<!everyone>');
    expect(body.text).not.to.include('<@U024BE7LH>');
    expect(body.text).not.to.match(/<https?:/);
    expect(body.text).to.include('&lt;!everyone&gt;');
    expect(body.mrkdwn).to.equal(false);
  });

  it('Discord: nobody is mentioned, and no masked link or formatting survives', () => {
    const body = JSON.parse(received.find((r) => r.path.startsWith('/api/webhooks/'))!.body) as { content: string; allowed_mentions?: { parse: unknown[] } };
    expect(body.content).to.match(/deployment of .* failed/);
    expect(body.allowed_mentions).to.deep.equal({ parse: [] });
    expect(body.content).not.to.include('@here');
    expect(body.content).not.to.include('[Open](');
    expect(body.content).to.include('\\[Open\\]\\(https\\:');
    expect(body.content).not.to.match(/(^|[^\\])\*x/);
  });
});
