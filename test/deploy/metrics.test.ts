// System metrics against real containers: host numbers are plausible, every running service
// container is sampled (a busy worker shows its CPU), keys see only their projects' services, and
// polling within the cache window is answered from the cache.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { webApp } from '../helpers/apps.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import type { Deployment, Service, ServiceContainerMetrics, SystemMetrics } from '../../shared/types.js';

const TOKEN = 'git-token-metrics';

describe('system metrics with running containers', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectA: string;
  let projectB: string;
  const live: { service: Service; deployment: Deployment }[] = [];
  let busy: { service: Service; deployment: Deployment };

  async function deployGit(projectId: string, files: Record<string, string>, extra: Record<string, unknown> = {}) {
    const repo = `acme/${uniq('metrics')}` as const;
    await git.commit(repo, files);
    const { service } = await t.admin.createService(projectId, { name: uniq('svc'), repoFullName: repo, githubToken: TOKEN, internalPort: 8080, ...extra });
    return deploy(service);
  }

  async function deploy(service: Service) {
    const { deployment } = await t.admin.deploy(service.id);
    return { service, deployment: await waitForDeployment(t.admin, service.id, deployment.id, ['running']) };
  }

  /** What Docker says of a service's containers, for a failure's message. */
  function containersOf(serviceId: string): string {
    return execFileSync('docker', ['ps', '-a', '--filter', `label=dev.berth.service=${serviceId}`, '--format', '{{.Names}} {{.State}} {{.Status}}'], { encoding: 'utf8' }).trim() || 'none';
  }

  function entryOf(metrics: SystemMetrics, serviceId: string): ServiceContainerMetrics | undefined {
    return metrics.services?.find((s) => s.serviceId === serviceId);
  }

  /** A snapshot collected after `previous`: waits out the cache window. */
  async function nextSnapshot(previous: SystemMetrics): Promise<SystemMetrics> {
    return until(
      'a new metrics collection',
      async () => {
        const m = await t.admin.systemMetrics();
        return m.collectedAt > previous.collectedAt ? m : null;
      },
      20_000,
      500,
    );
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer({ token: TOKEN });
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '20' });
    projectA = (await t.admin.createProject({ name: uniq('metrics-a') })).project.id;
    projectB = (await t.admin.createProject({ name: uniq('metrics-b') })).project.id;
    const { service: image } = await t.admin.createService(projectB, { name: uniq('img'), repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 });
    const [web, worker, img] = await Promise.all([
      deployGit(projectA, webApp('metrics web')),
      deployGit(projectA, { Dockerfile: 'FROM berth-test/busybox:latest\nCMD ["sh", "-c", "while true; do :; done"]\n' }, { runtimeMode: 'worker', internalPort: null }),
      deploy(image),
    ]);
    live.push(web, worker, img);
    busy = worker;
  });

  after(async () => {
    // deleting the projects stops and removes their containers (the busy worker too)
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  it('reports plausible host CPU, memory, disk (with the data dir) and network numbers', async () => {
    const m = await t.admin.systemMetrics();
    expect(m.errors).to.deep.equal([]);
    expect(Date.parse(m.collectedAt)).to.be.closeTo(Date.now(), 60_000);
    const { cpu, memory, disks, network } = m.host;
    expect(cpu!.cores).to.be.at.least(1);
    expect(cpu!.loadPercent).to.be.within(0, 100);
    expect(memory!.totalBytes).to.be.greaterThan(0);
    expect(memory!.usedBytes).to.be.greaterThan(0).and.at.most(memory!.totalBytes);
    const dataMount = execFileSync('df', ['-P', t.dataDir], { encoding: 'utf8' }).trim().split('\n').at(-1)!.split(/\s+/).at(-1);
    const disk = disks!.find((d) => d.mount === dataMount);
    expect(disk, `a disk mounted on ${dataMount} in ${JSON.stringify(disks)}`).to.not.equal(undefined);
    expect(disk!.totalBytes).to.be.greaterThan(0);
    expect(disk!.usedBytes).to.be.greaterThan(0).and.at.most(disk!.totalBytes);
    expect(network).to.be.an('array');
    for (const n of network!) {
      expect(n.iface)
        .to.be.a('string')
        .and.not.match(/^(veth|br-|docker\d)/);
      expect(n.rxBytesPerSecond).to.be.a('number').at.least(0);
      expect(n.txBytesPerSecond).to.be.a('number').at.least(0);
    }
  });

  it('samples every running service container: memory in use under its limit, names and ids from the deployment', async () => {
    const m = await t.admin.systemMetrics();
    for (const { service, deployment } of live) {
      const entry = entryOf(m, service.id);
      expect(entry, `an entry for ${service.name} in ${JSON.stringify({ services: m.services, errors: m.errors })}; Docker has ${containersOf(service.id)}`).to.not.equal(undefined);
      expect(entry).to.include({ projectId: service.projectId, deploymentId: deployment.id, containerName: deployment.containerName });
      expect(entry!.memoryBytes).to.be.greaterThan(0);
      expect(entry!.memoryBytes).to.be.lessThan(entry!.memoryLimitBytes);
    }
    expect(m.services).to.have.length(live.length, "only this daemon's containers are listed");
  });

  it('shows the busy worker using CPU after two polls a few seconds apart', async () => {
    const first = await t.admin.systemMetrics();
    await new Promise((r) => setTimeout(r, 3_000));
    const second = await nextSnapshot(first);
    const worker = entryOf(second, busy.service.id)!;
    expect(worker.cpuPercent, JSON.stringify(worker)).to.be.a('number').greaterThan(10);
    // at most every core busy (a little slack: the two clocks are read at slightly different moments)
    expect(worker.cpuPercent).to.be.at.most(second.host.cpu!.cores * 100 * 1.1);
    for (const { service } of live) expect(entryOf(second, service.id)!.cpuPercent).to.be.a('number').at.least(0);
  });

  it('answers a second call within the cache window from the same collection', async () => {
    const first = await t.admin.systemMetrics();
    const second = await t.admin.systemMetrics();
    expect(second.collectedAt).to.equal(first.collectedAt);
    expect(second).to.deep.equal(first);
  });

  it("a selected-projects key sees only its projects' services, and the same host", async () => {
    const onlyB = await t.clientWith('read', [projectB]);
    const m = await onlyB.systemMetrics();
    expect(m.services!.map((s) => s.projectId)).to.deep.equal([projectB]);
    expect(m.host.cpu!.cores).to.be.at.least(1);
    const all = await (await t.clientWith('read', 'all')).systemMetrics();
    expect(new Set(all.services!.map((s) => s.projectId))).to.deep.equal(new Set([projectA, projectB]));
  });

  it('refuses a request without a key (401)', async () => {
    const res = await t.anonymous.request('GET', '/api/system/metrics');
    expect(res.status).to.equal(401);
    expect(res.body).to.have.nested.property('error.code', 'unauthorized');
  });

  it('drops a service container once it is stopped', async () => {
    const before = await t.admin.systemMetrics();
    await t.admin.deleteService(busy.service.id);
    const after = await nextSnapshot(before);
    expect(entryOf(after, busy.service.id)).to.equal(undefined);
    expect(after.services).to.have.length(live.length - 1);
  });
});
