// A tenant that tries to starve the others through the deployment queue: project A's services
// build `RUN sleep 1000` (builds that hold a slot as long as they are let), more of them than
// there are slots, and queue deployment after deployment. Project B's deployment still starts and
// goes live while A's builds run; A cannot queue more than the per-project cap (by the API or by
// a signed push webhook), and only an all-projects key changes the cap.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ApiError, BerthClient } from '../../shared/client.js';
import type { Deployment, Project, Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { githubPush, send } from '../helpers/push-hooks.js';
import { until, waitForDeployment } from '../helpers/wait.js';

/** A build that holds its slot for 1000 s, saying so when its RUN step starts. */
const SLOT_HOLDER = {
  Dockerfile: 'FROM berth-test/busybox:latest\nRUN echo "holding a build slot" && sleep 1000\nCMD ["sleep", "3600"]\n',
};

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected the request to be refused');
}

describe('security: one project cannot starve the deployment queue', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectA: Project;
  let projectB: Project;
  let tenantA: BerthClient;
  let tenantB: BerthClient;
  /** A's slot holders: the first builds, the second waits (a project holds at most one of the two slots). */
  const holders: Service[] = [];
  const holderDeployments: Deployment[] = [];

  before(async function () {
    this.timeout(120_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_BUILD_CONCURRENCY: '2' });
    ({ project: projectA } = await t.admin.createProject({ name: uniq('starver') }));
    ({ project: projectB } = await t.admin.createProject({ name: uniq('victim') }));
    tenantA = await t.clientWith('write', [projectA.id]);
    tenantB = await t.clientWith('write', [projectB.id]);
  });

  after(async () => {
    // deleting a project aborts its builds (the Engine stops the sleeping step)
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function holder(client: BerthClient, project: Project): Promise<Service> {
    const repo = `starver/${uniq('hold')}` as const;
    await git.commit(repo, SLOT_HOLDER);
    return (await client.createService(project.id, { name: uniq('hold'), repoFullName: repo })).service;
  }

  const statusOf = async (client: BerthClient, serviceId: string, id: string) => (await client.listDeployments(serviceId)).deployments.find((d) => d.id === id)?.status;

  it("another project's deployment starts and goes live while a project's endless builds take every slot they may", async () => {
    for (let i = 0; i < 2; i++) holders.push(await holder(tenantA, projectA));
    for (const s of holders) holderDeployments.push((await tenantA.deploy(s.id)).deployment);
    const first = holderDeployments[0]!;
    await until('the first slot holder to reach its sleep', async () => (await tenantA.deploymentLogs(first.id)).logs.some((l) => l.line.includes('holding a build slot')), 60_000);

    const repo = `victim/${uniq('web')}` as const;
    await git.commit(repo, webApp('B still deploys'));
    const { service } = await tenantB.createService(projectB.id, { name: uniq('web'), repoFullName: repo, internalPort: 8080 });
    const { deployment } = await tenantB.deploy(service.id);
    const done = await waitForDeployment(tenantB, service.id, deployment.id, ['running', 'failed'], 60_000);
    expect(done.status).to.equal('running');
    // A's builds still run: B got the slot A could not take, not one A gave up
    expect(await statusOf(tenantA, holders[0]!.id, first.id)).to.equal('building');
    expect(await statusOf(tenantA, holders[1]!.id, holderDeployments[1]!.id)).to.equal('queued');
  });

  it('queued deployments per project are capped: one more POST is 429, creates nothing, and says why', async () => {
    // A's second holder waits in the queue: with a cap of 1, A has no room for another service
    await t.admin.patchSystemSettings({ maxQueuedPerProject: 1 });
    const extra = await holder(tenantA, projectA);
    const err = await refusal(tenantA.deploy(extra.id));
    expect([err.status, err.code]).to.deep.equal([429, 'deploy_queue_full']);
    expect(err.message).to.include('this project already has 1 queued deployment, the most one project may have waiting').and.include('maxQueuedPerProject');
    expect((await tenantA.listDeployments(extra.id)).deployments).to.deep.equal([]);
    // a new deployment of the service already waiting replaces it: the queue does not grow
    const again = (await tenantA.deploy(holders[1]!.id)).deployment;
    expect(await statusOf(tenantA, holders[1]!.id, holderDeployments[1]!.id)).to.equal('superseded');
    expect(await statusOf(tenantA, holders[1]!.id, again.id)).to.equal('queued');
    // another project's room is its own
    const other = await holder(tenantB, projectB);
    const { deployment } = await tenantB.deploy(other.id);
    await tenantB.abortDeployment(deployment.id);
  });

  it('a signed push webhook over the cap is refused the same way and creates nothing', async () => {
    const extra = await holder(tenantA, projectA);
    const { secret } = await tenantA.createWebhook(extra.id);
    const repo = `starver/${uniq('pushed')}` as const;
    const after = await git.commit(repo, SLOT_HOLDER);
    const push = { repo, branch: 'main', before: '0'.repeat(40), after, message: 'push', cloneUrl: git.urlOf(repo), files: ['Dockerfile'] };
    const delivery = githubPush(push, secret, randomUUID());
    const answer = await send(t.daemon.port, `/api/hooks/${extra.id}`, delivery);
    expect(answer.status).to.equal(429);
    expect((answer.json.error as { code: string }).code).to.equal('deploy_queue_full');
    expect((await tenantA.listDeployments(extra.id)).deployments).to.deep.equal([]);
  });

  it('only an all-projects write key changes the cap, within its bounds; a refused change changes nothing', async () => {
    expect((await refusal(tenantA.patchSystemSettings({ maxQueuedPerProject: 1000 }))).status).to.equal(403);
    for (const bad of [0, 1001, 2.5]) {
      const err = await refusal(t.admin.patchSystemSettings({ maxQueuedPerProject: bad }));
      expect(err.status, String(bad)).to.equal(400);
    }
    expect((await t.admin.systemSettings()).settings.maxQueuedPerProject).to.equal(1);
    expect((await t.admin.patchSystemSettings({ maxQueuedPerProject: null })).settings.maxQueuedPerProject).to.equal(20);
  });
});
