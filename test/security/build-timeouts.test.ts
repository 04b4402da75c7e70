// Wall-clock limits on the work a deployment does for a tenant, set in system settings: a build
// that never ends (`RUN sleep 1000`), an image pull from a registry that accepts and never
// answers, and a clone from a git server that does the same. Each is stopped for real at its
// limit (the build's step container is gone, git is killed), its deployment ends `failed` with
// one line naming the limit, and the build slot goes to the next deployment.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import type { Deployment, Project, Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { stallingServer } from '../helpers/hostile-repos.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const BUILD_LIMIT_S = 8;
const PULL_LIMIT_S = 5;
const CLONE_LIMIT_S = 5;

/** Containers (running or not) whose labels name this service's builds: the classic builder's step containers carry the image's labels. */
function buildContainersOf(serviceId: string): string[] {
  const out = docker('ps', '-a', '--filter', 'label=dev.berth.build', '--format', '{{.ID}} {{.Label "dev.berth.build"}}');
  return out
    .split('\n')
    .filter((l) => l.endsWith(`/${serviceId}`))
    .map((l) => l.split(' ')[0]!);
}

describe('security: builds, pulls and clones end at the time limits set in settings', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let stall: Awaited<ReturnType<typeof stallingServer>>;
  let project: Project;
  let tenant: BerthClient;

  before(async function () {
    this.timeout(120_000);
    requireDocker();
    git = await startGitServer();
    stall = await stallingServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_BUILD_CONCURRENCY: '2' });
    ({ project } = await t.admin.createProject({ name: uniq('slow') }));
    tenant = await t.clientWith('write', [project.id]);
    await t.admin.patchSystemSettings({ buildTimeoutSeconds: BUILD_LIMIT_S, pullTimeoutSeconds: PULL_LIMIT_S, cloneTimeoutSeconds: CLONE_LIMIT_S });
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    stall?.stop();
  });

  const logOf = async (id: string) => (await t.admin.deploymentLogs(id)).logs.map((l) => l.line);

  async function gitService(files: Record<string, string>, internalPort?: number): Promise<Service> {
    const repo = `slow/${uniq('app')}` as const;
    await git.commit(repo, files);
    return (await tenant.createService(project.id, { name: uniq('app'), repoFullName: repo, ...(internalPort ? { internalPort } : {}) })).service;
  }

  it('endless builds fail at the build limit with their step container gone, and the slot goes to the next deployment', async () => {
    const endless = { Dockerfile: 'FROM berth-test/busybox:latest\nRUN echo "holding a build slot" && sleep 1000\nCMD ["sleep", "3600"]\n' };
    const holders = [await gitService(endless), await gitService(endless)];
    const web = await gitService(webApp('after the endless builds'), 8080);
    const started = Date.now();
    const held: Deployment[] = [];
    for (const s of holders) held.push((await tenant.deploy(s.id)).deployment);
    const next = (await tenant.deploy(web.id)).deployment;

    await until('the first build to reach its sleep', async () => (await logOf(held[0]!.id)).includes('holding a build slot'), 60_000);
    expect(buildContainersOf(holders[0]!.id), 'the step container while it sleeps').to.have.length(1);
    for (const [i, dep] of held.entries()) {
      const done = await waitForDeployment(tenant, holders[i]!.id, dep.id, ['failed', 'running', 'aborted'], 90_000);
      expect(done.status).to.equal('failed');
      expect(await logOf(dep.id)).to.include(`Deployment failed: the build exceeded the ${BUILD_LIMIT_S} s limit set in settings (buildTimeoutSeconds) and was stopped`);
      await until('the step container to be gone', async () => buildContainersOf(holders[i]!.id).length === 0, 30_000);
    }
    // both builds took their limit, one after the other (a project holds one of the two slots)
    expect(Date.now() - started).to.be.greaterThan(2 * BUILD_LIMIT_S * 1000);
    expect((await waitForDeployment(tenant, web.id, next.id, ['running', 'failed'], 90_000)).status).to.equal('running');
  });

  it('an image pull from a registry that never answers fails at the pull limit', async () => {
    const port = new URL(stall.url('x')).port;
    const ref = `127.0.0.1:${port}/${uniq('app')}:1`;
    // a loopback registry: created with the all-projects key (the reach policy applies to project keys)
    const { service } = await t.admin.createService(project.id, { name: uniq('pulled'), dockerImage: ref, internalPort: 8080 });
    const opened = stall.connections();
    const started = Date.now();
    const { deployment } = await tenant.deploy(service.id);
    const done = await waitForDeployment(tenant, service.id, deployment.id, ['failed', 'running'], 60_000);
    expect(done.status).to.equal('failed');
    expect(stall.connections(), 'the Engine reached the registry').to.be.greaterThan(opened);
    expect(await logOf(deployment.id)).to.include(`Deployment failed: pulling ${ref} exceeded the ${PULL_LIMIT_S} s limit set in settings (pullTimeoutSeconds) and was stopped`);
    expect(Date.now() - started).to.be.lessThan((PULL_LIMIT_S + 15) * 1000);
  });

  it('a clone from a git server that never answers fails at the clone limit, with git killed and nothing left behind', async () => {
    const { service } = await t.admin.createService(project.id, { name: uniq('cloned'), repoUrl: stall.url(`slow/${uniq('never')}`) });
    const { deployment } = await tenant.deploy(service.id);
    const done = await waitForDeployment(tenant, service.id, deployment.id, ['failed', 'running'], 60_000);
    expect(done.status).to.equal('failed');
    expect(await logOf(deployment.id)).to.include(`Deployment failed: git clone took longer than ${CLONE_LIMIT_S} s (the limit set in settings, cloneTimeoutSeconds) and was stopped`);
    let builds: string[];
    try {
      builds = readdirSync(join(t.dataDir, 'builds'));
    } catch {
      builds = [];
    }
    expect(builds, 'the checkout directory').to.deep.equal([]);
    // no git of this clone is left running
    const gits = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(stall.url('slow').split('/slow')[0]!));
    expect(gits).to.deep.equal([]);
  });

  it('limits are bounded: a value outside 5 s to 24 h is refused with 400, and a project key cannot change them', async () => {
    for (const bad of [0, 4, 86_401, 1.5]) {
      const err = await t.admin.patchSystemSettings({ buildTimeoutSeconds: bad }).then(
        () => null,
        (e: { status: number; message: string }) => e,
      );
      expect(err?.status, String(bad)).to.equal(400);
      expect(err?.message).to.include('buildTimeoutSeconds');
    }
    const denied = await tenant.patchSystemSettings({ buildTimeoutSeconds: 86_400 }).then(
      () => null,
      (e: { status: number }) => e,
    );
    expect(denied?.status).to.equal(403);
    expect((await t.admin.systemSettings()).settings).to.include({ buildTimeoutSeconds: BUILD_LIMIT_S, pullTimeoutSeconds: PULL_LIMIT_S, cloneTimeoutSeconds: CLONE_LIMIT_S });
  });
});
