// The reverse proxy for real: a Caddy from Debian on loopback ports, driven by the daemon through its
// admin API, in front of a deployed fixture service.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { webApp } from '../helpers/apps.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import type { Service } from '../../shared/types.js';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

type Answer = { status: number; text: string } | { error: string };

function viaCaddy(scheme: 'http' | 'https', port: number, hostname: string): Promise<Answer> {
  return new Promise((resolve) => {
    const options = { host: '127.0.0.1', port, path: '/', headers: { host: hostname }, agent: false as const, timeout: 5000 };
    const req = scheme === 'https' ? httpsRequest({ ...options, servername: hostname, rejectUnauthorized: false }) : httpRequest(options);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => resolve({ error: err.message }));
    req.end();
  });
}

const answers = (a: Answer, text: string) => 'status' in a && a.status === 200 && a.text === `${text}\n`;

class Caddy {
  private child: ChildProcess | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'berth-caddy-'));
  constructor(readonly adminPort: number) {
    writeFileSync(join(this.dir, 'caddy.json'), JSON.stringify({ admin: { listen: `127.0.0.1:${adminPort}` } }));
  }
  get adminUrl() {
    return `http://127.0.0.1:${this.adminPort}`;
  }
  async start(): Promise<void> {
    const env = { ...process.env, HOME: this.dir, XDG_DATA_HOME: join(this.dir, 'data'), XDG_CONFIG_HOME: join(this.dir, 'config') };
    this.child = spawn('caddy', ['run', '--config', join(this.dir, 'caddy.json')], { env, stdio: 'ignore' });
    await until('Caddy to answer on its admin port', async () => (await fetch(`${this.adminUrl}/config/`).catch(() => null))?.ok, 20_000, 100);
  }
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('routing through Caddy', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let caddy: Caddy;
  let httpPort: number;
  let httpsPort: number;
  let projectId: string;
  let service: Service;
  let repo: `${string}/${string}`;
  let current: string;

  const setSetting = (key: string, value: string) => t.daemon.store.settings.set(key, value, new Date().toISOString());

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    caddy = new Caddy(await freePort());
    await caddy.start();
    httpPort = await freePort();
    httpsPort = await freePort();
    git = await startGitServer({ token: 'git-token-123' });
    t = await startTestDaemon({
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_HEALTH_TIMEOUT: '8',
      BERTH_CADDY_ADMIN: caddy.adminUrl,
      BERTH_PROXY_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      BERTH_PROXY_HTTPS_ADDR: `127.0.0.1:${httpsPort}`,
    });
    await setSetting('httpsMode', 'internal');
    projectId = (await t.admin.createProject({ name: uniq('caddy') })).project.id;
    repo = `acme/${uniq('routed')}`;
    await git.commit(repo, webApp('routed v1'));
    service = (await t.admin.createService(projectId, { name: uniq('routed'), repoFullName: repo, githubToken: 'git-token-123', internalPort: 8080 })).service;
    const { deployment } = await t.admin.deploy(service.id);
    await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    current = 'routed v1';
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    await caddy?.dispose();
  });

  let domainId: string;
  let hostname: string;

  it('a domain added through the API answers over HTTPS through Caddy (internal issuer)', async () => {
    hostname = `${uniq('app')}.berth.test`;
    const { domain, proxy } = await t.admin.addDomain(service.id, hostname);
    domainId = domain.id;
    expect(proxy.ok).to.equal(true);
    expect(proxy.detail).to.match(/Caddy loaded the configuration \(200 OK\)/);
    await until('the route to answer over HTTPS', async () => answers(await viaCaddy('https', httpsPort, hostname), current), 20_000);
  });

  it('PATCH moves the route to the new hostname; the old one is no longer served', async () => {
    const old = hostname;
    hostname = `${uniq('moved')}.berth.test`;
    const res = await t.admin.patchDomain(service.id, domainId, hostname);
    expect(res.proxy.ok).to.equal(true);
    await until('the new hostname to answer', async () => answers(await viaCaddy('https', httpsPort, hostname), current), 20_000);
    const gone = await viaCaddy('https', httpsPort, old);
    // no certificate is served for it any more, or (if one is still cached) the catch-all 404
    if ('status' in gone) expect(gone.status).to.equal(404);
    else expect(gone.error).to.be.a('string');
  });

  it('redeploying keeps the hostname answering through Caddy without a single failed request', async () => {
    await git.commit(repo, webApp('routed v2'));
    const seen: string[] = [];
    const failures: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const a = await viaCaddy('https', httpsPort, hostname);
        if ('status' in a && a.status === 200) seen.push(a.text.trim());
        else failures.push('status' in a ? `HTTP ${a.status}` : a.error);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const { deployment } = await t.admin.deploy(service.id);
    await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    await until('v2 to be served through Caddy', async () => seen.at(-1) === 'routed v2');
    await new Promise((r) => setTimeout(r, 3000));
    polling = false;
    await poller;
    current = 'routed v2';
    expect(failures).to.deep.equal([]);
    expect(seen).to.include('routed v1');
    expect(seen.at(-1)).to.equal('routed v2');
  });

  it('in HTTP mode a domain answers over plain HTTP, and DELETE makes it 404', async () => {
    await setSetting('httpsMode', 'http');
    const plain = `${uniq('plain')}.berth.test`;
    const { domain, proxy } = await t.admin.addDomain(service.id, plain);
    expect(proxy.ok).to.equal(true);
    await until('the route to answer over HTTP', async () => answers(await viaCaddy('http', httpPort, plain), current), 20_000);
    expect(answers(await viaCaddy('http', httpPort, hostname), current), 'the other domain moved to HTTP too').to.equal(true);
    const res = await t.admin.deleteDomain(service.id, domain.id);
    expect(res.proxy.ok).to.equal(true);
    const after = await viaCaddy('http', httpPort, plain);
    expect(after).to.include({ status: 404 });
  });

  it('a configuration Caddy could not listen for is not sent, its reason is reported, and every connection keeps the previous routing', async () => {
    // Caddy in HTTP mode leaves the HTTPS address free; something else takes it, so switching to
    // HTTPS cannot bind it: Berth finds the address taken and sends nothing (Caddy would refuse the load).
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(httpsPort, '127.0.0.1', resolve));
    try {
      await setSetting('httpsMode', 'internal');
      const refused = `${uniq('refused')}.berth.test`;
      const { proxy } = await t.admin.addDomain(service.id, refused);
      expect(proxy.ok).to.equal(false);
      expect(proxy.detail).to.match(
        new RegExp(`^Caddy cannot listen on 127\\.0\\.0\\.1:${httpsPort}: address already in use by another program; the configuration was not sent, and the previous configuration stays in force$`),
      );
      // Caddy 2.6 keeps serving a refused configuration's servers beside the previous ones (about
      // half the connections), so one answer proves nothing: every one of 20 must be the previous routing.
      for (let i = 0; i < 20; i++) {
        expect(answers(await viaCaddy('http', httpPort, hostname), current), 'the previous HTTP routing still answers').to.equal(true);
        expect(await viaCaddy('http', httpPort, refused), `request ${i + 1} for the refused hostname`).to.include({ status: 404 });
      }
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  });

  it('with Caddy stopped a domain is still saved (proxy.ok false); once Caddy is back, Berth re-applies on its own', async () => {
    await caddy.stop();
    const later = `${uniq('later')}.berth.test`;
    const res = await t.admin.request('POST', `/api/services/${service.id}/domains`, { hostname: later });
    expect(res.status).to.equal(200);
    const body = res.body as { ok: boolean; proxy: { ok: boolean; detail: string } };
    expect(body.proxy.ok).to.equal(false);
    expect(body.proxy.detail).to.match(new RegExp(`^Caddy is not reachable at ${caddy.adminUrl.replace(/[.]/g, '\\.')}: ECONNREFUSED; the change is saved and will be applied when it is back$`));
    expect((await t.admin.overview(service.id)).domains.map((d) => d.hostname)).to.include(later);
    // Caddy comes back with an empty config (only its admin endpoint); no API call follows.
    await caddy.start();
    await until('Berth to re-apply and the new domain to answer over HTTPS', async () => answers(await viaCaddy('https', httpsPort, later), current), 30_000, 300);
    expect(answers(await viaCaddy('https', httpsPort, hostname), current)).to.equal(true);
  });
});
