// The desktop app's main process (desktop/main) against real daemons with real Docker and git:
// notifications for failed deployments across two servers, a daemon stopped and restarted,
// resume from sleep, the bridge's allow-list and sender check, the key store's weak-backend and
// corrupt-file paths, and a pinned certificate. Electron's safeStorage, Notification, Tray and
// powerMonitor are the only stand-ins (test/desktop/stand-ins.ts).
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBridgeHandlers, RefusedCallError, type IpcSender, type StreamMessage } from '../../desktop/main/bridge-handlers.js';
import { WeakBackendError } from '../../desktop/main/secret-store.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { harness, type Harness } from './harness.js';
import { requireDocker } from '../helpers/docker.js';
import { missingDockerfile } from '../helpers/failing-apps.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { startTlsFront } from '../helpers/proxies.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { safeStorageStandIn } from './stand-ins.js';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A service on the daemon whose deployments really fail (no Dockerfile in the repository). */
async function failingService(t: TestDaemon, git: GitServer): Promise<string> {
  const repo = `acme/${uniq('broken')}` as const;
  await git.commit(repo, missingDockerfile.files);
  const { project } = await t.admin.createProject({ name: uniq('p') });
  const { service } = await t.admin.createService(project.id, { name: 'broken', repoFullName: repo, ...missingDockerfile.service });
  return service.id;
}

describe('desktop main process against real daemons', function () {
  this.timeout(120_000);
  let git: GitServer;
  let a: TestDaemon;
  let b: TestDaemon;
  let h: Harness;
  let serverA: string;
  let serverB: string;

  before(async function () {
    this.timeout(300_000);
    requireDocker();
    git = await startGitServer({});
    a = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    b = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    h = harness();
    h.app.start();
    const keyA = (await a.admin.createKey({ name: 'desktop', access: 'write', projects: 'all' })).token;
    const keyB = (await b.admin.createKey({ name: 'desktop', access: 'read', projects: 'all' })).token;
    const addedA = await h.app.addServer({ name: 'alpha', url: a.url, key: keyA });
    const addedB = await h.app.addServer({ name: 'beta', url: b.url, key: keyB });
    expect(addedA.test).to.deep.include({ ok: true });
    expect(addedA.test.key).to.include({ name: 'desktop', access: 'write', projects: 'all' });
    expect(addedB.test.key).to.include({ access: 'read' });
    serverA = addedA.server.id;
    serverB = addedB.server.id;
    await until('both streams online', async () => [...h.app.streams.values()].every((s) => s.state.status === 'online'), 10_000);
  });
  after(async () => {
    h?.app.stop();
    await a?.stop();
    await b?.stop();
    await git?.stop();
    if (h) rmSync(h.dir, { recursive: true, force: true });
  });

  it('keys are stored apart from the server list, encrypted; the list holds no key', async () => {
    const list = readFileSync(join(h.dir, 'servers.json'), 'utf8');
    const keys = readFileSync(join(h.dir, 'keys.json'), 'utf8');
    expect(list).to.include('alpha').and.not.include('berth_');
    expect(keys).to.not.include(h.app.secrets.get(serverA)!);
    expect(JSON.parse(keys)).to.include({ encoding: 'safeStorage' });
    expect(statSync(join(h.dir, 'keys.json')).mode & 0o777).to.equal(0o600);
    expect(h.app.secrets.status()).to.include({ mode: 'keychain' });
  });

  it('a failing deployment on one of two servers yields exactly one notification within 2 s; clicking it opens its log', async () => {
    const serviceId = await failingService(a, git);
    const before = h.notes.shown.length;
    const seen: StreamMessage[] = [];
    const unsubscribe = h.app.open(serverA, '/api/events', (m) => seen.push(m));
    const { deployment } = await a.admin.deploy(serviceId);
    const done = await waitForDeployment(a.admin, serviceId, deployment.id, ['failed'], 60_000);
    await until('the notification', async () => h.notes.shown.length > before, 5_000, 50);
    const note = h.notes.shown[before]!;
    expect(note.at - Date.parse(done.finishedAt!)).to.be.lessThan(2000);
    expect(note.title).to.equal('Deployment failed on alpha');
    await new Promise((r) => setTimeout(r, 1500)); // anything else would have arrived by now
    expect(h.notes.shown.slice(before).map((n) => n.title)).to.deep.equal(['Deployment failed on alpha']);
    note.click();
    expect(h.opened.at(-1)).to.deep.equal({ serverId: serverA, route: `/services/${serviceId}?d=${deployment.id}` });
    // the tray was rebuilt with the failure: worst state failed, alpha's submenu has the deployment
    const last = h.tray.renders.at(-1)!;
    expect(last.state).to.equal('failed');
    const alpha = last.menu.find((m) => m.label?.startsWith('alpha'))!;
    expect(alpha.submenu!.map((m) => m.label)).to.satisfy((l: string[]) => l.some((x) => x?.startsWith('Last failed deployment')));
    expect(last.menu.find((m) => m.label?.startsWith('beta'))!.label).to.equal('beta: ok');

    // a reconnect from before the failure: the daemon replays it, the app does not announce it again
    const ofThis = (m: StreamMessage) => m.type === 'event' && (m.event.data as { deploymentId?: string }).deploymentId === deployment.id;
    const queued = seen.find((m) => ofThis(m) && m.type === 'event' && (m.event.data as { status: string }).status === 'queued');
    expect(queued?.type === 'event' && queued.event.id).to.be.a('string');
    const failedBefore = seen.filter((m) => ofThis(m) && m.type === 'event' && (m.event.data as { status: string }).status === 'failed').length;
    const stream = h.app.streams.get(serverA)!;
    stream.lastEventId = queued!.type === 'event' ? queued!.event.id : undefined;
    stream.reconnectNow();
    await until('the replayed failure', async () => seen.filter((m) => ofThis(m) && m.type === 'event' && (m.event.data as { status: string }).status === 'failed').length > failedBefore, 5_000, 20);
    unsubscribe();
    await new Promise((r) => setTimeout(r, 300));
    expect(h.notes.shown.slice(before).map((n) => n.title)).to.deep.equal(['Deployment failed on alpha']);
  });

  it('muting a server silences its notifications; the tray still shows them', async () => {
    h.app.update(serverA, { muted: true });
    const serviceId = await failingService(a, git);
    const before = h.notes.shown.length;
    const { deployment } = await a.admin.deploy(serviceId);
    await waitForDeployment(a.admin, serviceId, deployment.id, ['failed'], 60_000);
    await until('the tray shows it', async () => h.app.summaries().find((s) => s.id === serverA)!.lastFailed?.deploymentId === deployment.id, 5_000, 50);
    expect(h.notes.shown.length).to.equal(before);
    h.app.update(serverA, { muted: false });
  });

  it('resume from sleep reconnects every stream at once', async () => {
    const stream = h.app.streams.get(serverB)!;
    const connects = stream.connects;
    h.power.emit('resume');
    await until('a new connection', async () => stream.connects > connects && stream.state.status === 'online', 3_000, 20);
  });

  it('the bridge refuses unknown routes and foreign frames, and adds the key itself', async () => {
    const policy = { appOrigin: 'berth-app://console', trustedWebContents: new Set([7]) };
    const bridge = createBridgeHandlers(h.app, policy);
    const ok: IpcSender = { webContentsId: 7, frameUrl: 'berth-app://console/services/x', isMainFrame: true };
    const projects = await bridge.request(ok, serverB, 'GET', '/api/projects', undefined);
    expect(projects.status).to.equal(200);
    const refused = async (p: Promise<unknown>, what: string) => {
      const err = await p.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, what).to.be.instanceOf(RefusedCallError);
    };
    await refused(bridge.request({ ...ok, frameUrl: 'https://evil.example/' }, serverB, 'GET', '/api/projects', undefined), 'another origin');
    await refused(bridge.request({ ...ok, isMainFrame: false }, serverB, 'GET', '/api/projects', undefined), 'a subframe');
    await refused(bridge.request({ ...ok, webContentsId: 8 }, serverB, 'GET', '/api/projects', undefined), 'another webContents');
    await refused(bridge.request({ ...ok, frameUrl: null }, serverB, 'GET', '/api/projects', undefined), 'a gone frame');
    for (const [method, path] of [
      ['POST', '/api/session'],
      ['GET', '/api/unknown'],
      ['GET', '/api/projects/../keys'],
      ['GET', '/api/projects/%2e%2e/keys'],
      ['GET', '/api/services/a%2Fb/overview'],
      ['POST', '/api/hooks/abc'],
      ['TRACE', '/api/projects'],
      ['GET', 'http://127.0.0.1:1/api/projects'],
      ['GET', '//evil.example/api/projects'],
    ] as const) {
      await refused(bridge.request(ok, serverB, method, path, undefined), `${method} ${path}`);
    }
    await refused(bridge.request(ok, 'no-such-server', 'GET', '/api/projects', undefined), 'an unknown server');
    expect(() => bridge.subscribe(ok, serverB, '/api/system/metrics', () => undefined)).to.throw(RefusedCallError);
    expect(() => bridge.subscribe({ ...ok, frameUrl: 'file:///tmp/x.html' }, serverB, '/api/events', () => undefined)).to.throw(RefusedCallError);
    // the renderer's /api/events joins the one stream the main process holds
    const got: StreamMessage[] = [];
    const connects = h.app.streams.get(serverA)!.connects;
    const stop = bridge.subscribe(ok, serverA, '/api/events', (m) => got.push(m));
    stop();
    expect(got[0]).to.deep.equal({ type: 'state', state: 'open' });
    expect(h.app.streams.get(serverA)!.connects).to.equal(connects);
    // summaries for the window carry no key
    expect(JSON.stringify(bridge.servers(ok))).to.not.include(h.app.secrets.get(serverA)!);
  });
});

describe('desktop main process: a daemon stopped and restarted', function () {
  this.timeout(120_000);
  let git: GitServer;
  let dataDir: string;
  let port: number;
  let t: TestDaemon | null = null;
  let h: Harness;

  const boot = async () => startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1', BERTH_DATA_DIR: dataDir, BERTH_PORT: String(port) });

  before(async function () {
    this.timeout(300_000);
    requireDocker();
    git = await startGitServer({});
    dataDir = mkdtempSync(join(tmpdir(), 'berth-desktop-daemon-'));
    port = await freePort();
    t = await boot();
    h = harness();
    h.app.start();
  });
  after(async () => {
    h?.app.stop();
    await t?.stop();
    await git?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (h) rmSync(h.dir, { recursive: true, force: true });
  });

  it('shows the server offline "since" while it is down, then recovers without repeating a notification', async () => {
    const key = (await t!.admin.createKey({ name: 'desktop', access: 'write', projects: 'all' })).token;
    const { server } = await h.app.addServer({ name: 'gamma', url: t!.url, key });
    const stream = h.app.streams.get(server.id)!;
    await until('online', async () => stream.state.status === 'online', 10_000);
    const serviceId = await failingService(t!, git);
    const { deployment } = await t!.admin.deploy(serviceId);
    await waitForDeployment(t!.admin, serviceId, deployment.id, ['failed'], 60_000);
    await until('the failure notification', async () => h.notes.shown.some((n) => n.title === 'Deployment failed on gamma'), 5_000, 50);
    const lastId = stream.lastEventId;
    expect(lastId).to.be.a('string');

    await t!.stop();
    t = null;
    const offline = await until('offline', async () => (stream.state.status === 'offline' ? stream.state : null), 10_000, 20);
    expect(offline.since).to.be.a('number');
    const summary = h.app.summaries().find((s) => s.id === server.id)!;
    expect(summary.connection.status).to.equal('offline');
    expect(summary.state).to.equal('offline');
    expect(h.tray.renders.at(-1)!.menu.find((m) => m.label?.startsWith('gamma'))!.submenu![0]!.label).to.match(/^Offline since /);
    await until('the debounced offline notification', async () => h.notes.shown.some((n) => n.title === 'gamma is offline'), 5_000, 50);
    const stillSince = await until('a later retry keeps the first "since"', async () => (stream.connects > 3 && stream.state.status === 'offline' ? stream.state.since : null), 10_000, 50);
    expect(stillSince).to.equal(offline.since);

    t = await boot();
    await until('back online', async () => stream.state.status === 'online', 10_000, 50);
    await until('the recovery notification', async () => h.notes.shown.some((n) => n.title === 'gamma is back online'), 5_000, 50);
    // whatever the restarted daemon replays for the old Last-Event-ID, the failure is not announced twice
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.notes.shown.map((n) => n.title)).to.deep.equal(['Deployment failed on gamma', 'gamma is offline', 'gamma is back online']);
  });
});

describe('desktop key store and pinned certificates', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  let d: TestDaemon;
  let key: string;
  before(async () => {
    d = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    key = (await d.admin.createKey({ name: 'desktop', access: 'read', projects: 'all' })).token;
  });
  after(async () => {
    await d?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const make = (backend: string, dir?: string) => {
    const x = harness({ safeStorage: safeStorageStandIn(backend), ...(dir ? { dir } : {}) });
    dirs.push(x.dir);
    return x;
  };

  it('a weak keychain (basic_text) is refused by default with two labelled choices, and nothing is stored', async () => {
    const x = make('basic_text');
    expect(x.app.secrets.status()).to.include({ mode: 'refused', backend: 'basic_text' });
    const err = await x.app.addServer({ name: 'weak', url: d.url, key }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(WeakBackendError);
    expect((err as WeakBackendError).choices.map((c) => c.id)).to.deep.equal(['plain-file', 'ask-each-launch']);
    expect((err as WeakBackendError).choices.map((c) => c.label).join(' '))
      .to.include('0600')
      .and.include('every time Berth starts');
    expect(existsSync(join(x.dir, 'keys.json'))).to.equal(false);
    expect(x.app.servers.list()).to.deep.equal([]);
  });

  it('choosing the 0600 file stores keys there, says so, and a new launch reads them', async () => {
    const x = make('basic_text');
    x.app.chooseWeakBackend('plain-file');
    const { server, test } = await x.app.addServer({ name: 'weak', url: d.url, key });
    expect(test.ok).to.equal(true);
    const file = join(x.dir, 'keys.json');
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.include({ encoding: 'plain' });
    expect(x.app.secrets.status().where).to.include(file).and.include('0600');
    const again = make('basic_text', x.dir);
    expect(again.app.secrets.get(server.id)).to.equal(key);
  });

  it('choosing "ask each launch" keeps keys in memory only', async () => {
    const x = make('basic_text');
    x.app.chooseWeakBackend('ask-each-launch');
    const { server } = await x.app.addServer({ name: 'weak', url: d.url, key });
    expect(x.app.secrets.get(server.id)).to.equal(key);
    expect(existsSync(join(x.dir, 'keys.json'))).to.equal(false);
    const again = make('basic_text', x.dir);
    expect(again.app.summaries().map((s) => [s.name, s.hasKey])).to.deep.equal([['weak', false]]);
    expect(again.app.secrets.status().where).to.include('every launch');
    // the window asks for the key again; the stream connects with it
    again.app.start();
    const stream = again.app.streams.get(server.id)!;
    await until('offline without a key', async () => stream.state.status === 'offline', 5_000, 20);
    expect(stream.state.error).to.equal('no key stored for this server');
    const answer = await again.app.local('POST', `/desktop/servers/${server.id}/key`, { key });
    expect((answer.body as { test: { ok: boolean } }).test.ok).to.equal(true);
    await until('online with the key', async () => stream.state.status === 'online', 5_000, 20);
    expect(existsSync(join(x.dir, 'keys.json'))).to.equal(false);
    again.app.stop();
  });

  it('a corrupt key store is moved aside and reported, the server list kept', async () => {
    const x = make('gnome_libsecret');
    const { server } = await x.app.addServer({ name: 'kept', url: d.url, key });
    const file = join(x.dir, 'keys.json');
    writeFileSync(file, '{"version":1,"encoding":"safeStorage","keys":{"x":');
    const again = make('gnome_libsecret', x.dir);
    const backup = again.app.secrets.status().corruptBackup!;
    expect(backup).to.be.a('string');
    expect(readFileSync(backup, 'utf8')).to.include('"keys":{"x":');
    expect(again.app.servers.list().map((s) => s.id)).to.deep.equal([server.id]);
    expect(again.app.summaries()[0]!.hasKey).to.equal(false);

    // a store the keychain can no longer decrypt (another keychain secret) is handled the same way
    again.app.secrets.set(server.id, key);
    const other = harness({ dir: x.dir, safeStorage: safeStorageStandIn('gnome_libsecret') });
    expect(other.app.secrets.status().corruptBackup).to.be.a('string');
    expect(other.app.secrets.get(server.id)).to.equal(undefined);
  });

  it('a pinned certificate is required: the right fingerprint connects, another is refused and says so', async () => {
    const front = await startTlsFront(d.url);
    try {
      const x = make('gnome_libsecret');
      const good = await x.app.addServer({ name: 'pinned', url: front.url, key, fingerprint: front.fingerprint });
      expect(good.test).to.include({ ok: true });
      const projects = await x.app.forward(good.server.id, 'GET', '/api/projects', undefined);
      expect(projects.status).to.equal(200);
      const bad = await x.app.addServer({ name: 'wrong pin', url: front.url, key, fingerprint: 'ab'.repeat(32) });
      expect(bad.test.ok).to.equal(false);
      expect(bad.test.error).to.include("the server's certificate changed").and.include(`paste the new fingerprint ${front.fingerprint}`);
      const call = await x.app.forward(bad.server.id, 'GET', '/api/projects', undefined);
      expect(call.status).to.equal(0);
      expect(JSON.stringify(call.body)).to.include('someone may be in between');
      x.app.start();
      const stream = x.app.streams.get(bad.server.id)!;
      await until('the pinned stream refused', async () => stream.state.status === 'offline', 5_000, 50);
      expect(stream.state.error).to.include("the server's certificate changed");
      await until('the right pin streams', async () => x.app.streams.get(good.server.id)!.state.status === 'online', 5_000, 50);
      x.app.stop();
    } finally {
      await front.stop();
    }
  });
});
