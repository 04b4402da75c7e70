// Deploy on push: `git push` to a local git server sends signed GitHub-format and Gitea-format
// deliveries (real payload shapes) to the service's webhook URL, through Caddy on the dashboard
// hostname; each deploys exactly the pushed commit (trigger `webhook`). A wrong or missing
// signature is 401 and queues nothing; a replayed delivery is not deployed twice; another branch
// is ignored; a body over 1 MB is 413; the secret is sealed at rest.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Deployment, Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer, type PushInfo } from '../helpers/git-server.js';
import { httpProbe } from '../helpers/pollers.js';
import { giteaPush, githubPush, gitlabPush, send, type Delivery } from '../helpers/push-hooks.js';
import { until, waitForDeployment } from '../helpers/wait.js';

describe('deploy on push (signed webhooks through Caddy)', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;
  let service: Service;
  let repo: `${string}/${string}`;
  let hookUrl: URL;
  let secret: string;
  const dashboard = 'berth-dashboard.berth.test';
  /** What the git server's push sends, and what came back. */
  let format: 'github' | 'gitea' | 'none' = 'none';
  const sent: { push: PushInfo; delivery: Delivery; answer: { status: number; json: Record<string, unknown> } }[] = [];

  const deliver = (delivery: Delivery) => send(t.caddy!.httpPort, hookUrl.pathname, delivery, dashboard);
  const deployments = async () => (await t.admin.listDeployments(service.id)).deployments;
  const answers = async (text: string) => {
    const r = await httpProbe(service.hostPort!)();
    return r.ok && r.text === text;
  };

  async function pushAndDeploy(text: string, as: 'github' | 'gitea'): Promise<{ sha: string; deployment: Deployment }> {
    format = as;
    const sha = await git.commit(repo, webApp(text), { message: `release ${text}` });
    format = 'none';
    const last = sent.at(-1)!;
    expect(last.push.after).to.equal(sha);
    expect(last.answer.status, JSON.stringify(last.answer.json)).to.equal(202);
    const queued = last.answer.json.deployment as Deployment;
    expect(queued).to.include({ trigger: 'webhook', commitSha: sha, status: 'queued' });
    const deployment = await waitForDeployment(t.admin, service.id, queued.id, ['running', 'failed'], 90_000);
    expect(deployment.status).to.equal('running');
    return { sha, deployment };
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    git.onPush = async (push) => {
      if (format === 'none') return;
      const delivery = format === 'github' ? githubPush(push, secret) : giteaPush(push, secret);
      sent.push({ push, delivery, answer: await deliver(delivery) });
    };
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15' });
    await t.admin.patchSystemSettings({ httpsMode: 'http', dashboardHostname: dashboard });
    projectId = (await t.admin.createProject({ name: uniq('push') })).project.id;
    repo = `acme/${uniq('push')}`;
    await git.commit(repo, webApp('v1'));
    service = (await t.admin.createService(projectId, { name: uniq('push'), repoFullName: repo, internalPort: 8080 })).service;
    const created = await t.admin.createWebhook(service.id);
    secret = created.secret;
    hookUrl = new URL(created.url);
  });
  after(async () => {
    if (projectId) await t?.admin.deleteProject(projectId).catch(() => undefined);
    await t?.stop();
    await git?.stop();
  });

  it('creates a webhook whose URL is on the dashboard hostname; GET shows no secret; the secret is sealed at rest', async () => {
    expect(hookUrl.href).to.equal(`http://${dashboard}/api/hooks/${service.id}`);
    expect(secret).to.match(/^[0-9a-f]{64}$/);
    const shown = await t.admin.getWebhook(service.id);
    expect(shown).to.deep.equal({ url: hookUrl.href, hasSecret: true, lastDeliveryAt: null });
    expect(readFileSync(join(t.dataDir, 'berth.sqlite')).includes(Buffer.from(secret))).to.equal(false);
  });

  it('a GitHub-format push deploys exactly that commit, through Caddy', async () => {
    const { sha, deployment } = await pushAndDeploy('v2', 'github');
    expect(deployment).to.include({ trigger: 'webhook', commitSha: sha });
    service = (await t.admin.overview(service.id)).service;
    await until('v2 to answer', () => answers('v2'), 20_000);
    expect((await t.admin.getWebhook(service.id)).lastDeliveryAt).to.be.a('string');
  });

  it('a Gitea-format push deploys exactly that commit', async () => {
    const { sha, deployment } = await pushAndDeploy('v3', 'gitea');
    expect(deployment).to.include({ trigger: 'webhook', commitSha: sha });
    await until('v3 to answer', () => answers('v3'), 20_000);
  });

  it('a delivery that arrives after the branch moved on deploys the pushed commit, not the tip', async () => {
    const pushes: PushInfo[] = [];
    git.onPush = async (push) => void pushes.push(push);
    await git.commit(repo, webApp('v4'));
    await git.commit(repo, webApp('v5'));
    git.onPush = async (push) => {
      if (format === 'none') return;
      const delivery = format === 'github' ? githubPush(push, secret) : giteaPush(push, secret);
      sent.push({ push, delivery, answer: await deliver(delivery) });
    };
    const r = await deliver(githubPush(pushes[0]!, secret));
    expect(r.status).to.equal(202);
    const deployment = await waitForDeployment(t.admin, service.id, (r.json.deployment as Deployment).id, ['running', 'failed'], 90_000);
    expect(deployment).to.include({ status: 'running', commitSha: pushes[0]!.after });
    await until('v4 to answer', () => answers('v4'), 20_000);
  });

  it('a replayed delivery (the same delivery id) is not deployed twice', async () => {
    const before = (await deployments()).length;
    const github = sent.find((s) => s.delivery.headers['x-github-delivery'])!;
    const gitea = sent.find((s) => s.delivery.headers['x-gitea-delivery'])!;
    for (const { delivery } of [github, gitea]) {
      const again = await deliver(delivery);
      expect(again.status).to.equal(202);
      expect(String(again.json.ignored)).to.match(/received before/);
    }
    expect((await deployments()).length).to.equal(before);
  });

  it('a wrong or missing signature is 401 and queues nothing', async () => {
    const before = (await deployments()).length;
    const push: PushInfo = { ...sent.at(-1)!.push, after: sent[0]!.push.after };
    const cases: Delivery[] = [
      githubPush(push, 'not-the-secret'),
      giteaPush(push, 'not-the-secret'),
      gitlabPush(push, 'not-the-secret'),
      (() => {
        const d = githubPush(push, secret);
        return { ...d, body: Buffer.concat([d.body.subarray(0, -1), Buffer.from(' }')]) }; // a body changed after signing
      })(),
      (() => {
        const d = githubPush(push, secret);
        const headers = { ...d.headers };
        delete headers['x-hub-signature-256'];
        delete headers['x-hub-signature'];
        return { ...d, headers };
      })(),
    ];
    for (const d of cases) {
      const r = await deliver(d);
      expect(r.status, JSON.stringify(r.json)).to.equal(401);
      expect((r.json.error as { code: string }).code).to.equal('unauthorized');
    }
    // the right signature for an unknown service is refused the same way
    expect((await send(t.caddy!.httpPort, '/api/hooks/no-such-service', githubPush(push, secret), dashboard)).status).to.equal(401);
    expect((await deployments()).length).to.equal(before);
  });

  it('a push to another branch, and another event, are answered 202 {ignored} and deploy nothing', async () => {
    const before = (await deployments()).length;
    format = 'github';
    await git.commit(repo, webApp('feature'), { branch: 'feature' });
    format = 'none';
    const feature = sent.at(-1)!;
    expect(feature.answer.status).to.equal(202);
    expect(String(feature.answer.json.ignored)).to.match(/refs\/heads\/feature.*main/);
    const ping = githubPush(feature.push, secret);
    const pingBody = Buffer.from(JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }));
    const pingDelivery: Delivery = {
      body: pingBody,
      headers: { ...ping.headers, 'x-github-event': 'ping', 'x-hub-signature-256': `sha256=${(await import('node:crypto')).createHmac('sha256', secret).update(pingBody).digest('hex')}` },
    };
    const r = await deliver(pingDelivery);
    expect(r.status).to.equal(202);
    expect(String(r.json.ignored)).to.match(/ping is not a push/);
    const gitlab = await deliver(gitlabPush(feature.push, secret));
    expect(gitlab.status).to.equal(202);
    expect((await deployments()).length).to.equal(before);
  });

  it('a body over 1 MB is 413 and queues nothing; after DELETE the same signed push is 401', async () => {
    const before = (await deployments()).length;
    const big = githubPush({ ...sent.at(-1)!.push, message: 'x'.repeat(1024 * 1024) }, secret);
    expect((await deliver(big)).status).to.equal(413);
    await t.admin.deleteWebhook(service.id);
    expect(await t.admin.getWebhook(service.id)).to.include({ hasSecret: false, lastDeliveryAt: null });
    const r = await deliver(githubPush(sent.at(-1)!.push, secret));
    expect(r.status).to.equal(401);
    expect((await deployments()).length).to.equal(before);
  });
});
