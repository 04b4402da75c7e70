// Roll back: a new deployment (trigger `rollback`) that runs an earlier live deployment's image
// again, without a build, through the same health check and Caddy swap; pollers every 50 ms on the
// host port and a domain (both served by Caddy) see no failed request. Images beyond the last
// BERTH_KEEP_IMAGES successful deployments are pruned, and rolling back to one of those is 409.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { ApiError } from '../../shared/client.js';
import type { Deployment, Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { httpProbe, pollAll } from '../helpers/pollers.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const imageExists = (ref: string) => spawnSync('docker', ['image', 'inspect', ref], { stdio: 'ignore' }).status === 0;

describe('rolling back to an earlier image', function () {
  this.timeout(240_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;
  let service: Service;
  let repo: `${string}/${string}`;
  let hostname: string;
  const live: Record<string, Deployment> = {};

  async function deployVersion(text: string): Promise<Deployment> {
    await git.commit(repo, webApp(text));
    const { deployment } = await t.admin.deploy(service.id);
    return waitForDeployment(t.admin, service.id, deployment.id, ['running']);
  }

  async function status(p: Promise<unknown>): Promise<number> {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    return err instanceof ApiError ? err.status : 200;
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15', BERTH_KEEP_IMAGES: '2' });
    await t.admin.patchSystemSettings({ httpsMode: 'http' }); // domains over plain HTTP on Caddy's address
    projectId = (await t.admin.createProject({ name: uniq('rollback') })).project.id;
    repo = `acme/${uniq('rb')}`;
    await git.commit(repo, webApp('v1'));
    service = (await t.admin.createService(projectId, { name: uniq('rb'), repoFullName: repo, internalPort: 8080 })).service;
    const { deployment } = await t.admin.deploy(service.id);
    live.v1 = await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    live.v2 = await deployVersion('v2');
    service = (await t.admin.overview(service.id)).service;
    hostname = `${uniq('rb')}.berth.test`;
    await t.admin.addDomain(service.id, hostname);
    await until(
      'v2 to answer through Caddy',
      async () => {
        const r = await httpProbe(t.caddy!.httpPort, hostname)();
        return r.ok && r.text === 'v2';
      },
      20_000,
    );
  });
  after(async () => {
    if (projectId) await t?.admin.deleteProject(projectId).catch(() => undefined);
    await t?.stop();
    await git?.stop();
  });

  it('runs the earlier image again with no build step, under 50 ms pollers with 0 failed requests', async () => {
    const load = pollAll({ hostPort: httpProbe(service.hostPort!), domain: httpProbe(t.caddy!.httpPort, hostname) });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const { deployment } = await t.admin.rollbackDeployment(live.v1!.id);
      expect(deployment).to.include({ status: 'queued', trigger: 'rollback', imageTag: live.v1!.imageTag, commitSha: live.v1!.commitSha });
      const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 60_000);
      expect(done.status).to.equal('running');
      live.rollback = done;
      await until(
        'v1 again on both',
        async () => {
          const [a, b] = await Promise.all([httpProbe(service.hostPort!)(), httpProbe(t.caddy!.httpPort, hostname)()]);
          return a.ok && a.text === 'v1' && b.ok && b.text === 'v1';
        },
        20_000,
        50,
      );
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      const pollers = await load.stop();
      for (const p of pollers) {
        expect(p.failures, `${p.name} failures`).to.deep.equal([]);
        expect(p.answers.length, `${p.name} answers`).to.be.greaterThan(5);
        expect([...new Set(p.answers)].sort(), `${p.name} answers`).to.deep.equal(['v1', 'v2']);
      }
    }
    const log = (await t.admin.deploymentLogs(live.rollback!.id)).logs.map((l) => l.line).join('\n');
    expect(log).to.match(/Rolling back: running image .* without building/);
    expect(log).not.to.match(/build step|Building with|Cloning|Built image/);
    expect(log).to.match(/Deployment is live/);
  });

  it('keeps the images of the last N successful deployments and prunes older ones; rolling back to a pruned one is 409', async () => {
    // newest first: v3, the rollback (v1's image), v2: with BERTH_KEEP_IMAGES=2, v2's image goes
    live.v3 = await deployVersion('v3');
    await until("v2's image to be pruned", async () => !imageExists(live.v2!.imageTag!), 90_000, 500);
    expect(imageExists(live.v1!.imageTag!), "v1's image (the rollback's) stays").to.equal(true);
    expect(imageExists(live.v3!.imageTag!), "v3's image (live) stays").to.equal(true);
    const before = (await t.admin.listDeployments(service.id)).deployments.length;
    const err = await t.admin.rollbackDeployment(live.v2!.id).catch((e: unknown) => e);
    expect((err as ApiError).status).to.equal(409);
    expect((err as ApiError).code).to.equal('image_gone');
    expect((await t.admin.listDeployments(service.id)).deployments.length, 'nothing queued').to.equal(before);
  });

  it('409 for a deployment that never went live, 404 outside the key, 403 for a read key', async () => {
    const { deployment } = await t.admin.deploy(service.id, { branch: 'no-such-branch' });
    await waitForDeployment(t.admin, service.id, deployment.id, ['failed'], 60_000);
    expect(await status(t.admin.rollbackDeployment(deployment.id))).to.equal(409);
    const other = (await t.admin.createProject({ name: uniq('rb-other') })).project.id;
    const outsider = await t.clientWith('write', [other]);
    expect(await status(outsider.rollbackDeployment(live.v1!.id))).to.equal(404);
    expect(await status(outsider.rollbackDeployment('no-such-deployment'))).to.equal(404);
    const reader = await t.clientWith('read', [projectId]);
    expect(await status(reader.rollbackDeployment(live.v1!.id))).to.equal(403);
    await t.admin.deleteProject(other);
  });
});
