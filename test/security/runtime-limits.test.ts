// Container limits: every container Berth runs gets memory, CPU and PID limits (the service's own,
// else the server's defaults), image builds get memory and CPU limits, and a tenant's app that
// forks without end or eats memory is contained by them while the daemon and other services keep
// answering. Limits are validated, and a selected-projects key cannot go past the server's maxima.
import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { webApp } from '../helpers/apps.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { httpText, waitForDeployment } from '../helpers/wait.js';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';

const MiB = 1024 * 1024;

/**
 * Builds (printing the build step's own cgroup limits), then at start forks sleepers until the PIDs
 * limit refuses, runs `tail /dev/zero` (which grows without end) until the kernel kills it, frees
 * its processes and serves on $PORT.
 */
function hostileApp(): Record<string, string> {
  const app = webApp('still standing', ['echo "build memory limit: $(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)" && echo "build cpu quota: $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us)"']);
  const start = ['(i=0; while [ $i -lt 1000 ]; do sleep 600 & i=$((i+1)); done) 2>/dev/null', 'tail /dev/zero', 'kill -9 -1', 'exec httpd -f -v -p ${PORT} -h /www'].join('; ');
  app.Dockerfile = app.Dockerfile!.replace(/^CMD .*$/m, `CMD ["sh", "-c", ${JSON.stringify(start)}]`);
  return app;
}

async function healthWithin(url: string, ms: number): Promise<boolean> {
  const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(ms) }).catch(() => null);
  return res?.status === 200;
}

describe('security: container limits', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_HEALTH_TIMEOUT: '30',
      BERTH_MAX_MEMORY_MB: '512',
      BERTH_MAX_CPUS: '1',
      BERTH_MAX_PIDS: '256',
      BERTH_BUILD_MEMORY_MB: '300',
      BERTH_BUILD_CPUS: '0.5',
    });
    projectId = (await t.admin.createProject({ name: uniq('limits') })).project.id;
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function gitService(client: BerthClient, files: Record<string, string>, extra: Record<string, unknown> = {}): Promise<Service> {
    const repo = `acme/${uniq('app')}` as const;
    await git.commit(repo, files);
    return (await client.createService(projectId, { name: uniq('web'), repoFullName: repo, internalPort: 8080, ...extra })).service;
  }

  it('a fork bomb and a memory hog hit their PIDs and memory limits; the daemon and other services keep answering', async () => {
    const neighbour = await gitService(t.admin, webApp('neighbour'));
    const nDep = (await t.admin.deploy(neighbour.id)).deployment;
    const nLive = await waitForDeployment(t.admin, neighbour.id, nDep.id, ['running']);
    // no limits given: the server's defaults, in the service's JSON and on the container
    expect(neighbour.limits).to.deep.equal({ memoryMb: 1024, cpus: 1, pids: 512 });
    const nHost = JSON.parse(docker('inspect', '--format', '{{json .HostConfig}}', nLive.containerName!)) as Record<string, number>;
    expect(nHost).to.include({ Memory: 1024 * MiB, MemorySwap: 1024 * MiB, NanoCpus: 1e9, PidsLimit: 512 });

    const hostile = await gitService(t.admin, hostileApp(), { limits: { memoryMb: 64, cpus: 0.5, pids: 48 } });
    expect(hostile.limits).to.deep.equal({ memoryMb: 64, cpus: 0.5, pids: 48 });
    const dep = (await t.admin.deploy(hostile.id)).deployment;
    const live = await waitForDeployment(t.admin, hostile.id, dep.id, ['running']);

    const host = JSON.parse(docker('inspect', '--format', '{{json .HostConfig}}', live.containerName!)) as Record<string, number>;
    expect(host).to.include({ Memory: 64 * MiB, MemorySwap: 64 * MiB, NanoCpus: 5e8, PidsLimit: 48 });
    // the kernel's own counters: forks refused at the PIDs limit, a process killed at the memory limit
    const pidsEvents = docker('exec', live.containerName!, 'cat', '/sys/fs/cgroup/pids/pids.events');
    expect(Number(/max (\d+)/.exec(pidsEvents)?.[1])).to.be.greaterThan(0);
    const oom = docker('exec', live.containerName!, 'cat', '/sys/fs/cgroup/memory/memory.oom_control');
    expect(Number(/oom_kill (\d+)/.exec(oom)?.[1])).to.be.greaterThan(0);

    // the build ran under the build limits
    const lines = (await t.admin.deploymentLogs(dep.id)).logs.map((l) => l.line);
    expect(lines).to.include(`build memory limit: ${300 * MiB}`);
    expect(lines).to.include('build cpu quota: 50000');

    expect(await healthWithin(t.url, 1000)).to.equal(true);
    expect((await httpText(`http://127.0.0.1:${hostile.hostPort}/`)).text).to.equal('still standing\n');
    expect((await httpText(`http://127.0.0.1:${neighbour.hostPort}/`)).text).to.equal('neighbour\n');
  });

  it('limits are validated (400, nothing changed) and a selected-projects key cannot pass the server maxima', async () => {
    const service = (await t.admin.createService(projectId, { name: uniq('api'), repoFullName: 'acme/api' })).service;
    const scoped = await t.clientWith('write', [projectId]);
    const before = await snapshotStore(t.dataDir);
    const bad: unknown[] = [{ memoryMb: -1 }, { memoryMb: 8 }, { memoryMb: 100.5 }, { memoryMb: '512' }, { cpus: 0 }, { cpus: 1.234 }, { cpus: 1000 }, { pids: 1e12 }, { pids: 3 }, [], 'lots', null];
    for (const limits of bad) {
      const res = await t.admin.request('PATCH', `/api/services/${service.id}`, { limits });
      expect(res.status, JSON.stringify(limits)).to.equal(400);
      const created = await t.admin.request('POST', `/api/projects/${projectId}/services`, { name: uniq('x'), repoFullName: 'acme/x', limits });
      expect(created.status, JSON.stringify(limits)).to.equal(400);
    }
    for (const limits of [{ memoryMb: 1024 }, { cpus: 2 }, { pids: 1000 }]) {
      const res = await scoped.request<{ error: { code: string; message: string } }>('PATCH', `/api/services/${service.id}`, { limits });
      expect(res.status, JSON.stringify(limits)).to.equal(400);
      expect(res.body.error.code).to.equal('limit_exceeded');
      expect(res.body.error.message).to.match(/at most/);
    }
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);

    // within the maxima a selected-projects key may set them; null goes back to the default
    const set = (await scoped.patchService(service.id, { limits: { memoryMb: 512, cpus: 1, pids: 256 } })).service;
    expect(set.limits).to.deep.equal({ memoryMb: 512, cpus: 1, pids: 256 });
    // the administrator's key may go past them
    expect((await t.admin.patchService(service.id, { limits: { memoryMb: 4096 } })).service.limits.memoryMb).to.equal(4096);
    const reset = (await t.admin.patchService(service.id, { limits: { memoryMb: null, pids: null } })).service;
    expect(reset.limits).to.deep.equal({ memoryMb: 1024, cpus: 1, pids: 512 });
    expect((await t.admin.overview(service.id)).service.limits).to.deep.equal(reset.limits);
    // databases get the database defaults
    const db = (await t.admin.createService(projectId, { name: uniq('db'), repoFullName: 'database:redis', repoUrl: 'database' })).service;
    expect(db.limits).to.deep.equal({ memoryMb: 2048, cpus: Math.min(2, availableParallelism()), pids: 4096 });
  });
});
