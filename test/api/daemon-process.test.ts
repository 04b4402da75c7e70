// The daemon as a user runs it: `node dist/daemon/main.js` configured by BERTH_* variables, and the
// `berth keys` CLI against the same data dir.
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BerthClient } from '../../shared/client.js';
import { freePort } from '../helpers/caddy.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

const MAIN = join(REPO_ROOT, 'dist/daemon/main.js');
const CLI = join(REPO_ROOT, 'dist/daemon/cli.js');

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('daemon did not become healthy');
}

describe('daemon process and CLI', function () {
  this.timeout(30_000);
  let dataDir: string;
  let child: ChildProcess | null = null;
  let stderr = '';

  async function start(env: Record<string, string>): Promise<string> {
    const port = await freePort();
    stderr = '';
    child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, BERTH_HOST: '127.0.0.1', BERTH_PORT: String(port), BERTH_DATA_DIR: dataDir, BERTH_PORT_RANGE: PORT_RANGES.daemonProcess, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(url, child);
    return url;
  }

  async function stop(): Promise<void> {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    child = null;
  }

  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, BERTH_DATA_DIR: dataDir }, encoding: 'utf8' });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'berth-proc-'));
  });
  afterEach(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('BERTH_BOOTSTRAP_KEY gives an all-projects write key with exactly that secret', async () => {
    const secret = 'bootstrap-secret-0123456789abcdef';
    const url = await start({ BERTH_BOOTSTRAP_KEY: secret });
    const client = new BerthClient(url, secret);
    const { project } = await client.createProject({ name: 'From bootstrap' });
    expect(project.slug).to.equal('from-bootstrap');
    const { keys } = await client.listKeys();
    expect(keys).to.have.length(1);
    expect(keys[0]).to.include({ access: 'write', projects: 'all' });
  });

  it('a first start with no key writes one to <data dir>/initial-key (0600), never to the log', async () => {
    const url = await start({});
    const path = join(dataDir, 'initial-key');
    const token = readFileSync(path, 'utf8').trim();
    expect(statSync(path).mode & 0o777).to.equal(0o600);
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).to.equal(0o600);
    expect(stderr).to.include(path);
    expect(stderr).not.to.include(token);
    await new BerthClient(url, token).createProject({ name: 'works' });
  });

  it('data survives a restart: projects, services, host ports and encrypted values', async () => {
    const secret = 'restart-secret-0123456789abcdef';
    let client = new BerthClient(await start({ BERTH_BOOTSTRAP_KEY: secret }), secret);
    const { project } = await client.createProject({ name: 'durable' });
    const { service } = await client.createService(project.id, { name: 'api', repoFullName: 'acme/api', env: [{ key: 'TOKEN', value: 'abc' }] });
    await stop();
    client = new BerthClient(await start({ BERTH_BOOTSTRAP_KEY: secret }), secret);
    const overview = await client.overview(service.id);
    expect(overview.service.hostPort).to.equal(service.hostPort);
    expect(overview.env.map((e) => [e.key, e.value])).to.deep.equal([['TOKEN', 'abc']]);
  });

  it('berth keys create / list / revoke work against the data dir of a running daemon', async () => {
    const url = await start({ BERTH_BOOTSTRAP_KEY: 'cli-secret-0123456789abcdef' });
    const created = cli('keys', 'create', '--access', 'read', '--projects', 'all', '--name', 'laptop');
    expect(created.status, created.stderr).to.equal(0);
    const token = created.stdout.trim();
    expect(token).to.match(/^berth_/);
    const reader = new BerthClient(url, token);
    await reader.listProjects();
    const denied = await reader.request('POST', '/api/projects', { name: 'nope' });
    expect(denied.status).to.equal(403);

    const listed = cli('keys', 'list');
    expect(listed.status).to.equal(0);
    const line = listed.stdout.split('\n').find((l) => l.includes('laptop'))!;
    expect(line).to.include('read');
    expect(listed.stdout).not.to.include(token);

    const id = line.split('\t')[0]!;
    expect(cli('keys', 'revoke', id).status).to.equal(0);
    expect((await reader.request('GET', '/api/projects')).status).to.equal(401);
  });

  it('berth keys --json prints what the API answers for keys: {key, token}, one key per line, {ok, id}', async () => {
    const secret = 'cli-json-0123456789abcdef';
    const url = await start({ BERTH_BOOTSTRAP_KEY: secret });
    const admin = new BerthClient(url, secret);
    const created = cli('keys', 'create', '--access', 'read', '--projects', 'all', '--name', 'ci', '--json');
    expect(created.status, created.stderr).to.equal(0);
    expect(created.stderr).to.equal('');
    const { key, token } = JSON.parse(created.stdout) as { key: { id: string }; token: string };
    const fromApi = (await admin.request('GET', '/api/keys')).body as { keys: { id: string }[] };
    expect(key).to.deep.equal(fromApi.keys.find((k) => k.id === key.id));
    expect((await new BerthClient(url, token).request('GET', '/api/projects')).status).to.equal(200);

    const listed = cli('keys', 'list', '--json');
    expect(listed.status, listed.stderr).to.equal(0);
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    const nowFromApi = (await admin.request('GET', '/api/keys')).body as { keys: { id: string }[] };
    expect(lines).to.deep.equal(nowFromApi.keys); // lastUsedAt included: the key was used above
    expect(listed.stdout).not.to.include(token);

    const revoked = cli('keys', 'revoke', key.id, '--json');
    expect(revoked.status, revoked.stderr).to.equal(0);
    expect(JSON.parse(revoked.stdout)).to.deep.equal({ ok: true, id: key.id });
    expect((await new BerthClient(url, token).request('GET', '/api/projects')).status).to.equal(401);
  });

  it('berth keys create scopes a key to listed projects', async () => {
    const secret = 'cli-scope-0123456789abcdef';
    const url = await start({ BERTH_BOOTSTRAP_KEY: secret });
    const admin = new BerthClient(url, secret);
    const a = await admin.createProject({ name: 'a' });
    await admin.createProject({ name: 'b' });
    const created = cli('keys', 'create', '--access', 'write', '--projects', a.project.id);
    expect(created.status, created.stderr).to.equal(0);
    const { projects } = await new BerthClient(url, created.stdout.trim()).listProjects();
    expect(projects.map((p) => p.name)).to.deep.equal(['a']);
  });

  it('berth refuses bad arguments with a message and exit code 2', () => {
    for (const args of [['keys', 'create', '--access', 'admin', '--projects', 'all'], ['keys', 'create', '--access', 'read'], ['keys'], ['nothing']]) {
      const res = cli(...args);
      expect(res.status, args.join(' ')).to.equal(2);
      expect(res.stderr).to.match(/berth: /);
    }
    const unknownProject = cli('keys', 'create', '--access', 'read', '--projects', 'nope');
    expect(unknownProject.status).to.equal(2);
    expect(unknownProject.stderr).to.include('does not exist');
  });

  for (const [name, value, message] of [
    ['BERTH_PORT', 'abc', 'BERTH_PORT must be a port number'],
    ['BERTH_PORT', '70000', 'BERTH_PORT must be between'],
    ['BERTH_PORT_RANGE', '300-200', 'BERTH_PORT_RANGE'],
    ['BERTH_PORT_RANGE', '20000', 'BERTH_PORT_RANGE must look like'],
    ['BERTH_CADDY_ADMIN', 'not a url', 'BERTH_CADDY_ADMIN must be a URL'],
    ['BERTH_GIT_BASE_URL', 'ftp://x', 'BERTH_GIT_BASE_URL must be an http(s) URL'],
    ['BERTH_BOOTSTRAP_KEY', 'short', 'BERTH_BOOTSTRAP_KEY must be'],
    ['BERTH_BUILD_CA_FILE', '/no/such/file.pem', 'BERTH_BUILD_CA_FILE'],
    ['BERTH_IMAGE_POSTGRES', '--evil', 'BERTH_IMAGE_POSTGRES'],
  ] as const) {
    it(`stops with a clear message and a non-zero exit for ${name}=${value}`, () => {
      const res = spawnSync(process.execPath, [MAIN], { env: { ...process.env, BERTH_DATA_DIR: dataDir, [name]: value }, encoding: 'utf8', timeout: 10_000 });
      expect(res.status).to.equal(2);
      expect(res.stderr).to.include('configuration error').and.include(message);
    });
  }
});
