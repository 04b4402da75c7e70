// Live logs: the deployment stream (snapshot, log, end; resume with Last-Event-ID) read with a
// real EventSource client, and the runtime stream of the live container.
import { expect } from 'chai';
import { EventSource } from 'eventsource';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { slowBuildApp } from '../helpers/apps.js';
import { waitForDeployment } from '../helpers/wait.js';
import type { DeploymentLogLine, RuntimeLogLine } from '../../shared/types.js';

interface Received {
  type: string;
  id: string;
  data: unknown;
}

/** Reads an SSE endpoint with the `eventsource` package until `stopOn` says so. */
function collect(url: string, token: string, lastEventId: string | null, stopOn: (e: Received) => boolean, timeoutMs = 60_000): Promise<Received[]> {
  return new Promise((resolve, reject) => {
    const got: Received[] = [];
    const es = new EventSource(url, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } }),
    });
    const timer = setTimeout(() => {
      es.close();
      reject(new Error(`no end after ${timeoutMs} ms; got ${got.map((g) => g.type).join(',')}`));
    }, timeoutMs);
    for (const type of ['snapshot', 'log', 'ping', 'end', 'status']) {
      es.addEventListener(type, (ev) => {
        const e = { type, id: ev.lastEventId, data: JSON.parse(ev.data) as unknown };
        got.push(e);
        if (stopOn(e)) {
          clearTimeout(timer);
          es.close();
          resolve(got);
        }
      });
    }
    es.onerror = (err) => {
      if (got.some(stopOn)) return;
      clearTimeout(timer);
      es.close();
      reject(new Error(`EventSource error: ${String((err as { message?: string }).message)}`));
    };
  });
}

describe('deployment and runtime log streams', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let token: string;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15' });
    token = (await t.admin.createKey({ access: 'read', projects: 'all' })).token;
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  it('streams a snapshot, then live lines, then end; Last-Event-ID resumes with only the missing lines', async () => {
    const { project } = await t.admin.createProject({ name: uniq('sse') });
    const repo = `acme/${uniq('sse')}` as const;
    await git.commit(repo, slowBuildApp(4));
    const { service } = await t.admin.createService(project.id, { name: 'slow', repoFullName: repo, internalPort: 8080 });
    const { deployment } = await t.admin.deploy(service.id);
    const url = `${t.url}/api/deployments/${deployment.id}/stream`;

    const events = await collect(url, token, null, (e) => e.type === 'end');
    expect(events[0]!.type).to.equal('snapshot');
    const end = events.at(-1)!;
    expect(end.data).to.deep.equal({ status: 'running' });
    const live = events.filter((e) => e.type === 'log').map((e) => e.data as DeploymentLogLine);
    expect(live.length, 'lines should arrive live, not only in the snapshot').to.be.greaterThan(3);
    expect(live.map((l) => l.line)).to.include.members(['tick 1', 'tick 4']);
    for (const l of live) expect(Object.keys(l).sort()).to.deep.equal(['createdAt', 'deploymentId', 'id', 'line', 'stream']);
    const snapshot = events[0]!.data as DeploymentLogLine[];
    const all = [...snapshot, ...live];
    const ids = all.map((l) => l.id);
    expect(new Set(ids).size, 'no line twice').to.equal(ids.length);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(events.filter((e) => e.type === 'log').every((e) => e.id === String((e.data as DeploymentLogLine).id))).to.equal(true);
    const { logs } = await t.admin.deploymentLogs(deployment.id);
    expect(logs.map((l) => l.id)).to.deep.equal(ids);

    const cut = ids[Math.floor(ids.length / 2)]!;
    const resumed = await collect(url, token, String(cut), (e) => e.type === 'end');
    const again = resumed[0]!.data as DeploymentLogLine[];
    expect(again.map((l) => l.id)).to.deep.equal(ids.filter((id) => id > cut));
    expect(resumed.at(-1)!.data).to.deep.equal({ status: 'running' });
    expect(resumed.at(-1)!.id).to.equal(String(ids.at(-1)));
  });

  it('a finished deployment streams its snapshot and end at once', async () => {
    const { project } = await t.admin.createProject({ name: uniq('done') });
    const repo = `acme/${uniq('done')}` as const;
    await git.commit(repo, { 'README.md': 'nothing to build\n' });
    const { service } = await t.admin.createService(project.id, { name: 'x', repoFullName: repo, buildMethod: 'dockerfile' });
    const { deployment } = await t.admin.deploy(service.id);
    await waitForDeployment(t.admin, service.id, deployment.id, ['failed']);
    const events = await collect(`${t.url}/api/deployments/${deployment.id}/stream`, token, null, (e) => e.type === 'end', 10_000);
    expect(events.map((e) => e.type)).to.deep.equal(['snapshot', 'end']);
    expect(events[1]!.data).to.deep.equal({ status: 'failed' });
  });

  it("the runtime stream sends the container's output live, and status closed when it stops", async () => {
    const { project } = await t.admin.createProject({ name: uniq('rt') });
    const repo = `acme/${uniq('rt')}` as const;
    await git.commit(repo, {
      Dockerfile: 'FROM berth-test/busybox:latest\nCMD ["sh", "-c", "i=0; while [ $i -lt 8 ]; do i=$((i+1)); echo line $i; echo oops $i >&2; sleep 1; done"]\n',
    });
    const { service } = await t.admin.createService(project.id, { name: 'talker', repoFullName: repo, runtimeMode: 'worker' });
    const { deployment } = await t.admin.deploy(service.id);
    await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    const events = await collect(`${t.url}/api/services/${service.id}/runtime-logs/stream`, token, null, (e) => e.type === 'status' && (e.data as { closed: boolean }).closed, 30_000);
    expect(events[0]!.type).to.equal('snapshot');
    expect(events[1]).to.include({ type: 'status' });
    expect(events[1]!.data).to.deep.equal({ ok: true, closed: false });
    const lines = [...(events[0]!.data as RuntimeLogLine[]), ...events.filter((e) => e.type === 'log').map((e) => e.data as RuntimeLogLine)];
    expect(lines.map((l) => l.line)).to.include.members(['line 1', 'line 8', 'oops 8']);
    expect(lines.find((l) => l.line === 'oops 3')!.stream).to.equal('stderr');
    expect(events.filter((e) => e.type === 'log').length, 'some lines arrive live').to.be.greaterThan(0);
    expect(events.at(-1)!.data).to.deep.equal({ ok: false, closed: true });
  });
});
