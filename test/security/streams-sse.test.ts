// Event streams under a hostile tenant: at most 20 open per key (the next is 429 too_many_streams),
// a client that stops reading is dropped instead of buffered for, and streams end when their key
// is revoked or the service they show moves out of the key's projects.
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import type { BerthClient } from '../../shared/client.js';
import { MAX_STREAMS_PER_KEY } from '../../daemon/http/sse-streams.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { expectHealthy } from '../helpers/hostile-checks.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { until, waitForDeployment } from '../helpers/wait.js';

interface OpenStream {
  status: number;
  body: string;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens an SSE endpoint with fetch, reading it as it comes. */
async function openStream(url: string, token: string): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  const out: OpenStream = { status: res.status, body: '', ended: Promise.resolve(), close: () => abort.abort() };
  if (res.status !== 200) {
    out.body = await res.text();
    return out;
  }
  out.ended = (async () => {
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        out.body += decoder.decode(value, { stream: true });
      }
    } catch {
      // aborted by the test
    }
  })();
  return out;
}

describe('security: event streams', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;
  let otherProjectId: string;
  let adminToken: string;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15' });
    projectId = (await t.admin.createProject({ name: uniq('tenant') })).project.id;
    otherProjectId = (await t.admin.createProject({ name: uniq('other') })).project.id;
    adminToken = (await t.admin.createKey({ name: 'admin streams', access: 'read', projects: 'all' })).token;
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  /** A selected-projects write key of the tenant, and the admin's token. */
  async function tenantKey(): Promise<{ tenant: BerthClient; token: string; keyId: string }> {
    const { key, token } = await t.admin.createKey({ name: uniq('tenant'), access: 'write', projects: [projectId] });
    return { tenant: t.admin.withToken(token), token, keyId: key.id };
  }

  async function deployWorker(client: BerthClient, name: string, cmd: string): Promise<string> {
    const repo = `acme/${uniq(name)}` as const;
    await git.commit(repo, { Dockerfile: `FROM berth-test/busybox:latest\nCMD ["sh", "-c", ${JSON.stringify(cmd)}]\n` });
    const { service } = await client.createService(projectId, { name, repoFullName: repo, runtimeMode: 'worker' });
    const { deployment } = await client.deploy(service.id);
    await waitForDeployment(client, service.id, deployment.id, ['running'], 120_000);
    return service.id;
  }

  it(`a key holds at most ${MAX_STREAMS_PER_KEY} streams; the next is 429 too_many_streams and changes nothing; other keys are not affected`, async () => {
    const { token, keyId } = await tenantKey();
    const open: OpenStream[] = [];
    for (let i = 0; i < MAX_STREAMS_PER_KEY; i++) open.push(await openStream(`${t.url}/api/events`, token));
    expect(open.map((s) => s.status)).to.deep.equal(Array(MAX_STREAMS_PER_KEY).fill(200));
    const before = await snapshotStore(t.dataDir);
    const refused = await openStream(`${t.url}/api/events`, token);
    expect(refused.status).to.equal(429);
    expect(JSON.parse(refused.body)).to.deep.include({
      error: { code: 'too_many_streams', message: `this key has ${MAX_STREAMS_PER_KEY} event streams open already (the cap per key); close one first` },
    });
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    const admins = await openStream(`${t.url}/api/events`, adminToken);
    expect(admins.status).to.equal(200);
    admins.close();
    await expectHealthy(t.url);
    // a closed stream frees its place
    open.pop()!.close();
    await until('the closed stream to be released', async () => t.daemon.sse.count(keyId) === MAX_STREAMS_PER_KEY - 1, 5000, 50);
    const again = await openStream(`${t.url}/api/events`, token);
    expect(again.status).to.equal(200);
    for (const s of [...open, again]) s.close();
    await until('every stream to be released', async () => t.daemon.sse.count(keyId) === 0, 5000, 50);
  });

  it('a client that stops reading a busy runtime stream is dropped, not buffered for', async () => {
    const { tenant, token, keyId } = await tenantKey();
    // 16 KB lines, as fast as the shell prints them
    const serviceId = await deployWorker(tenant, 'loud', "while true; do head -c 16000 /dev/zero | tr '\\0' y; echo; done");
    const port = Number(new URL(t.url).port);
    const socket: Socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(`GET /api/services/${serviceId}/runtime-logs/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    socket.pause(); // and never read
    const rssBefore = process.memoryUsage().rss;
    const droppedBefore = t.daemon.sse.slowReadersDropped;
    // the container prints megabytes a second: far more than the bound soon waits for the client
    await until(
      'the daemon to drop the stalled stream',
      async () => {
        await expectHealthy(t.url);
        return t.daemon.sse.slowReadersDropped > droppedBefore && t.daemon.sse.count(keyId) === 0;
      },
      30_000,
      250,
    );
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 500));
      await expectHealthy(t.url);
    }
    expect(process.memoryUsage().rss - rssBefore, 'RSS growth').to.be.below(100 * 1024 * 1024);
    // the connection is gone: the client's socket ends once it reads again
    socket.on('error', () => undefined);
    socket.resume();
    await until('the client socket to end', async () => socket.destroyed || socket.readableEnded, 10_000, 100);
    await tenant.deleteService(serviceId);
    await expectHealthy(t.url);
  });

  it("streams end when their key is revoked or the service moves out of the key's projects", async () => {
    const { tenant, token, keyId } = await tenantKey();
    const serviceId = await deployWorker(tenant, 'ticker', 'while true; do echo tick; sleep 1; done');
    const runtimeUrl = `${t.url}/api/services/${serviceId}/runtime-logs/stream`;

    // moved to a project the key does not cover: the runtime stream ends, the event stream stays
    const events = await openStream(`${t.url}/api/events`, token);
    const runtime = await openStream(runtimeUrl, token);
    expect([events.status, runtime.status]).to.deep.equal([200, 200]);
    await until('the runtime stream to be open', async () => t.daemon.sse.count(keyId) === 2, 5000, 50);
    await t.admin.transferService(serviceId, otherProjectId);
    await Promise.race([runtime.ended, new Promise((_, reject) => setTimeout(() => reject(new Error('the runtime stream did not end after the move')), 5000))]);
    expect(runtime.body).to.include('event: snapshot');
    expect(t.daemon.sse.count(keyId)).to.equal(1);
    expect((await openStream(runtimeUrl, token)).status).to.equal(404);

    // revoked: every stream of the key ends
    await t.admin.transferService(serviceId, projectId);
    const again = await openStream(runtimeUrl, token);
    expect(again.status).to.equal(200);
    await t.admin.revokeKey(keyId);
    await Promise.race([Promise.all([events.ended, again.ended]), new Promise((_, reject) => setTimeout(() => reject(new Error('the streams did not end after the key was revoked')), 5000))]);
    expect(t.daemon.sse.count(keyId)).to.equal(0);
    expect((await openStream(`${t.url}/api/events`, token)).status).to.equal(401);
    await t.admin.deleteService(serviceId);
    await expectHealthy(t.url);
  });
});
