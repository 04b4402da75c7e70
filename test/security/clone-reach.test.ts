// A tenant aiming the daemon's own requests at the host: a repository URL or an image registry on
// loopback, the Docker bridge or the metadata address. For a key over selected projects each is
// refused before anything connects (403 at create, 403 for a build-plan preview, a failed
// deployment with a clear line for a row that points there later); a key over all projects keeps
// cloning from this host. Real git servers and a listening "registry" count what reaches them.
import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApiError, type BerthClient } from '../../shared/client.js';
import type { Project, Service } from '../../shared/types.js';
import { silentApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { waitForDeployment } from '../helpers/wait.js';

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the request to be refused');
}

/** A TCP listener on loopback that counts connections: a registry or git host nobody may reach. */
async function countingListener(): Promise<{ port: number; connections: () => number; stop: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, connections: () => count, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("security: clones and image registries stay off this server's own addresses for a key over selected projects", function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let git: GitServer; // BERTH_GIT_BASE_URL: the operator's forge
  let other: GitServer; // another git server on this host: the host's own service
  let registry: Awaited<ReturnType<typeof countingListener>>;
  let project: Project;
  let tenant: BerthClient;
  let bridge: string;

  before(async function () {
    this.timeout(120_000);
    requireDocker();
    git = await startGitServer();
    other = await startGitServer();
    registry = await countingListener();
    // an address of the default bridge's subnet (its gateway is this host's docker0)
    const subnet = docker('network', 'inspect', 'bridge', '--format', '{{range .IPAM.Config}}{{.Subnet}} {{end}}').split(' ')[0]!;
    bridge = subnet.replace(/\.0\/\d+$/, '.1');
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '10' });
    ({ project } = await t.admin.createProject({ name: uniq('reach') }));
    tenant = await t.clientWith('write', [project.id]);
    await other.commit('host/app', silentApp());
    await git.commit('tenant/app', silentApp());
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    await other?.stop();
    await registry?.stop();
  });

  async function deployAndWait(client: BerthClient, service: Service): Promise<{ status: string; log: string }> {
    const { deployment } = await client.deploy(service.id);
    const done = await waitForDeployment(client, service.id, deployment.id, ['running', 'failed']);
    const log = (await client.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n');
    return { status: done.status, log };
  }

  it('a repository URL on loopback, the Docker bridge or the metadata address is refused with 403 at create, nothing is created, nothing connects', async () => {
    const port = new URL(other.baseUrl).port;
    const before = (await t.admin.getProject(project.id)).project.services.length;
    const seen = other.requests.length;
    for (const repoUrl of [other.urlOf('host/app'), `http://[::1]:${port}/host/app.git`, `http://${bridge}:${port}/host/app.git`, 'http://169.254.169.254/latest/meta-data.git']) {
      const err = await apiError(tenant.createService(project.id, { name: uniq('near'), repoUrl }));
      expect(err.status, repoUrl).to.equal(403);
      expect(err.message, repoUrl).to.match(/^repoUrl's host \S+ is (this server|one of its containers or a link-local address): a key over selected projects clones only from another server/);
    }
    expect((await t.admin.getProject(project.id)).project.services.length).to.equal(before);
    expect(other.requests.length).to.equal(seen);
  });

  it('a key over all projects keeps cloning from this server, and the tenant may deploy what it set up', async () => {
    const { service } = await t.admin.createService(project.id, { name: uniq('host'), repoUrl: other.urlOf('host/app'), runtimeMode: 'worker' });
    const seen = other.requests.length;
    const { status, log } = await deployAndWait(tenant, service);
    expect(status, log).to.equal('running');
    expect(other.requests.length).to.be.greaterThan(seen);
  });

  it("owner/name under BERTH_GIT_BASE_URL (the operator's forge) still works for the tenant", async () => {
    const { service } = await tenant.createService(project.id, { name: uniq('forge'), repoFullName: 'tenant/app', runtimeMode: 'worker' });
    const { status, log } = await deployAndWait(tenant, service);
    expect(status, log).to.equal('running');
  });

  it('a tenant service whose URL points at this server later fails its deployment before any request, and its build plan answers 403', async () => {
    const { service } = await tenant.createService(project.id, { name: uniq('moved'), repoFullName: 'tenant/app', runtimeMode: 'worker' });
    await t.daemon.store.services.update(service.id, { repoFullName: null, repoUrl: other.urlOf('host/app') });
    const seen = other.requests.length;
    const { status, log } = await deployAndWait(tenant, service);
    expect(status).to.equal('failed');
    expect(log).to.match(/repoUrl's host 127\.0\.0\.1 is this server: a key over selected projects clones only from another server.*; the clone was not started/);
    expect(log).not.to.include('Cloning');
    const reader = await t.clientWith('read', [project.id]);
    const err = await apiError(reader.buildPlan(service.id));
    expect(err.status).to.equal(403);
    expect(other.requests.length).to.equal(seen);
  });

  it('an image registry on this server is refused: dockerImage with 403 (an all-projects key may), FROM in a build fails the deployment, and nothing connects to it', async () => {
    const ref = `127.0.0.1:${registry.port}/tenant/app:1`;
    const err = await apiError(tenant.createService(project.id, { name: uniq('img'), repoUrl: 'docker-image', dockerImage: ref }));
    expect(err.status).to.equal(403);
    expect(err.message).to.match(/^the image reference's registry's host 127\.0\.0\.1 is this server: a key over selected projects pulls only from registries on other servers/);
    expect((await t.admin.createService(project.id, { name: uniq('img'), repoUrl: 'docker-image', dockerImage: ref })).service.dockerImage).to.equal(ref);

    await git.commit('tenant/from-local', { Dockerfile: `FROM ${ref}\nCMD ["sleep", "3600"]\n` });
    const { service } = await tenant.createService(project.id, { name: uniq('from'), repoFullName: 'tenant/from-local', runtimeMode: 'worker' });
    const { status, log } = await deployAndWait(tenant, service);
    expect(status).to.equal('failed');
    expect(log).to.include(`the Dockerfile's FROM ${ref} on line 1: the image reference's registry's host 127.0.0.1 is this server`);
    expect(registry.connections()).to.equal(0);
  });
});
