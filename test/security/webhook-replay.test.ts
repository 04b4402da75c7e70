// Someone who captured one signed push delivery (a proxy log, a leaked request dump) replays it
// against the open hook route with fresh delivery ids to redeploy an old commit at will; and a
// git host re-sends a push of a commit the branch already deployed. Neither deploys anything: a
// delivery is known by its id, its body's hash and its (ref, commit), and a commit the branch
// deployed before is answered 202 {ignored}. The service and its webhook belong to a
// selected-projects key; the deliveries go through the real daemon, real git and real Docker.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { BerthClient } from '../../shared/client.js';
import type { Deployment, Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer, type PushInfo } from '../helpers/git-server.js';
import { githubPush, giteaPush, send, type Delivery } from '../helpers/push-hooks.js';
import { waitForDeployment } from '../helpers/wait.js';

describe('webhook replay: a captured delivery under fresh ids, and a push of a deployed commit', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let tenant: BerthClient;
  let service: Service;
  let repo: `${string}/${string}`;
  let secret: string;
  let hookPath: string;
  const pushes: PushInfo[] = [];

  const deliver = (d: Delivery) => send(t.daemon.port, hookPath, d);
  const count = async () => (await tenant.listDeployments(service.id)).deployments.length;
  /** The same bytes and signature under another delivery id, as a replay would send them. */
  const withFreshId = (d: Delivery): Delivery => {
    const headers = { ...d.headers };
    for (const h of ['x-github-delivery', 'x-gitea-delivery']) if (headers[h]) headers[h] = randomUUID();
    return { ...d, headers };
  };

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    git.onPush = async (push) => void pushes.push(push);
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15' });
    const project = (await t.admin.createProject({ name: uniq('hooks') })).project;
    tenant = await t.clientWith('write', [project.id]);
    repo = `acme/${uniq('replay')}`;
    await git.commit(repo, webApp('v1'));
    service = (await tenant.createService(project.id, { name: 'web', repoFullName: repo, internalPort: 8080 })).service;
    const hook = await tenant.createWebhook(service.id);
    secret = hook.secret;
    hookPath = new URL(hook.url).pathname;
  });
  after(async () => {
    await t?.admin.deleteService(service.id).catch(() => undefined);
    await t?.stop();
    await git?.stop();
  });

  it('a captured signed delivery replayed with fresh delivery ids (GitHub and Gitea headers) deploys nothing new', async () => {
    await git.commit(repo, webApp('v2'));
    const captured = githubPush(pushes.at(-1)!, secret);
    const first = await deliver(captured);
    expect(first.status, JSON.stringify(first.json)).to.equal(202);
    const deployed = await waitForDeployment(tenant, service.id, (first.json.deployment as Deployment).id, ['running', 'failed'], 90_000);
    expect(deployed.status).to.equal('running');
    // the branch moves on to v3
    await git.commit(repo, webApp('v3'));
    const v3 = await deliver(githubPush(pushes.at(-1)!, secret));
    await waitForDeployment(tenant, service.id, (v3.json.deployment as Deployment).id, ['running', 'failed'], 90_000);

    const before = await count();
    for (let i = 0; i < 3; i++) {
      const replay = await deliver(withFreshId(captured));
      expect(replay.status, JSON.stringify(replay.json)).to.equal(202);
      expect(replay.json.deployment, 'a replay queued a deployment').to.equal(undefined);
      expect(String(replay.json.ignored)).to.match(/received before|already deployed/);
    }
    // the same push of v2 in Gitea's format (another body, signed by the same secret) is the same push
    const asGitea = await deliver(giteaPush(pushes.at(-2)!, secret));
    expect(asGitea.status).to.equal(202);
    expect(String(asGitea.json.ignored)).to.match(/received before|already deployed/);
    expect(await count()).to.equal(before);
  });

  it('a push of a commit the branch already deployed (by hand, never delivered) is ignored', async () => {
    await git.commit(repo, webApp('v4'));
    const push = pushes.at(-1)!;
    const manual = (await tenant.deploy(service.id)).deployment;
    const done = await waitForDeployment(tenant, service.id, manual.id, ['running', 'failed'], 90_000);
    expect(done).to.include({ status: 'running', commitSha: push.after });
    const before = await count();
    const late = await deliver(githubPush(push, secret));
    expect(late.status, JSON.stringify(late.json)).to.equal(202);
    expect(late.json.deployment, 'the deployed commit was queued again').to.equal(undefined);
    expect(String(late.json.ignored)).to.match(/already deployed/);
    expect(await count()).to.equal(before);
  });

  it('a new commit is still deployed by its push', async () => {
    await git.commit(repo, webApp('v5'));
    const r = await deliver(githubPush(pushes.at(-1)!, secret));
    expect(r.status).to.equal(202);
    expect((r.json.deployment as Deployment).commitSha).to.equal(pushes.at(-1)!.after);
  });

  it('the hook URL says https when the API was reached over HTTPS through Caddy (X-Forwarded-Proto from loopback)', async () => {
    const viaCaddy = await tenant.request<{ url: string }>('GET', `/api/services/${service.id}/webhook`, undefined, { headers: { 'x-forwarded-proto': 'https' } });
    expect(viaCaddy.status).to.equal(200);
    expect(viaCaddy.body.url).to.match(new RegExp(`^https://127\\.0\\.0\\.1:${t.daemon.port}/api/hooks/${service.id}$`));
    // a plain request still says http
    expect((await tenant.getWebhook(service.id)).url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/api\/hooks\//);
  });
});
