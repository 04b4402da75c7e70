// What an app answers never reaches the daemon: Caddy serves the host port and the domains, a
// malformed answer becomes a 502 (or a cleaned response) for that one client, many connections are
// Caddy's to hold, and X-Forwarded-For keeps what came in and appends the client's address.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import type { Service } from '../../shared/types.js';

/** A raw-TCP "HTTP server" that answers whatever a path asks for, valid or not. */
function hostileApp(): Record<string, string> {
  const server = String.raw`
const net = require('net');
net.createServer((c) => {
  let buf = '';
  c.on('error', () => {});
  c.on('data', (d) => {
    buf += d;
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const [line, ...lines] = buf.slice(0, end).split('\r\n');
    buf = '';
    const path = line.split(' ')[1];
    const h = {};
    for (const l of lines) h[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const answer = (head, body) => c.end(head + '\r\nContent-Length: ' + Buffer.byteLength(body) + '\r\nConnection: close\r\n\r\n' + body);
    if (path === '/odd-status') answer('HTTP/1.1 099 Odd', 'odd');
    else if (path === '/control-value') answer('HTTP/1.1 200 OK\r\nX-Bad: a\x01b', 'value');
    else if (path === '/control-name') answer('HTTP/1.1 200 OK\r\nX-B\x01d: x', 'name');
    else if (path === '/garbage') c.end('this is not http\r\n\r\n');
    else if (path === '/headers') answer('HTTP/1.1 200 OK', JSON.stringify({ xff: h['x-forwarded-for'] ?? null, proto: h['x-forwarded-proto'] ?? null, host: h['x-forwarded-host'] ?? null }));
    else answer('HTTP/1.1 200 OK', 'ok');
  });
}).listen(Number(process.env.PORT), '0.0.0.0');
`;
  return { Dockerfile: 'FROM berth-test/node:latest\nWORKDIR /app\nCOPY server.js .\nCMD ["node", "server.js"]\n', 'server.js': server };
}

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; text: string } | { error: string };

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => resolve({ error: err.message }));
    req.end();
  });
}

describe('hostile app answers and X-Forwarded-For through Caddy', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let service: Service;
  let hostname: string;

  /** The daemon answers its health check within 1 s. */
  async function daemonHealthy(): Promise<void> {
    const res = await fetch(`${t.url}/api/health`, { signal: AbortSignal.timeout(1000) });
    expect(res.status).to.equal(200);
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '20' });
    await t.admin.patchSystemSettings({ httpsMode: 'http' });
    const { project } = await t.admin.createProject({ name: uniq('hostile') });
    const repo = `acme/${uniq('hostile')}` as const;
    await git.commit(repo, hostileApp());
    service = (await t.admin.createService(project.id, { name: uniq('hostile'), repoFullName: repo, internalPort: 8080 })).service;
    const { deployment } = await t.admin.deploy(service.id);
    await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    hostname = `${uniq('hostile')}.berth.test`;
    await t.admin.addDomain(service.id, hostname);
    await until(
      'the domain to answer',
      async () => {
        const a = await get(t.caddy!.httpPort, '/', { host: hostname });
        return 'status' in a && a.status === 200;
      },
      20_000,
    );
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  it('the host port is Caddy listening, not the daemon', () => {
    const out = execFileSync('ss', ['-Hltnp', `sport = :${service.hostPort}`], { encoding: 'utf8' });
    expect(out).to.include('"caddy"');
    expect(out).not.to.include('"node"');
  });

  it('status 099: the client gets a 502 on the host port and through the domain; the daemon keeps answering', async () => {
    expect(await get(service.hostPort!, '/odd-status')).to.include({ status: 502 });
    expect(await get(t.caddy!.httpPort, '/odd-status', { host: hostname })).to.include({ status: 502 });
    await daemonHealthy();
  });

  it('a control byte in a header: a strict client reads a clean answer (the byte or the header dropped); a non-HTTP answer: 502', async () => {
    // node's own HTTP parser (strict) reads both answers: no control byte reached it
    const name = await get(service.hostPort!, '/control-name');
    expect(name).to.include({ status: 200, text: 'name' });
    expect(Object.keys((name as { headers: Record<string, unknown> }).headers).filter((k) => /[^a-z0-9-]/.test(k))).to.deep.equal([]);
    const value = await get(service.hostPort!, '/control-value');
    expect(value).to.include({ status: 200, text: 'value' });
    expect((value as { headers: Record<string, unknown> }).headers['x-bad']).to.equal('ab');
    expect(await get(service.hostPort!, '/garbage')).to.include({ status: 502 });
    await daemonHealthy();
  });

  it('many connections at once: every request is answered and the daemon is unaffected', async () => {
    const answers = await Promise.all(Array.from({ length: 400 }, () => get(service.hostPort!, '/')));
    expect(answers.filter((a) => !('status' in a) || a.status !== 200)).to.deep.equal([]);
    await daemonHealthy();
  });

  it('X-Forwarded-For keeps what came in and appends the client; X-Forwarded-Proto and -Host are what Caddy saw', async () => {
    const spoof = { 'x-forwarded-for': '203.0.113.7, 198.51.100.2', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };
    const viaPort = await get(service.hostPort!, '/headers', spoof);
    expect(JSON.parse((viaPort as { text: string }).text)).to.deep.equal({ xff: '203.0.113.7, 198.51.100.2, 127.0.0.1', proto: 'http', host: `127.0.0.1:${service.hostPort}` });
    const viaDomain = await get(t.caddy!.httpPort, '/headers', { ...spoof, host: hostname });
    expect(JSON.parse((viaDomain as { text: string }).text)).to.deep.equal({ xff: '203.0.113.7, 198.51.100.2, 127.0.0.1', proto: 'http', host: hostname });
    const plain = await get(service.hostPort!, '/headers');
    expect(JSON.parse((plain as { text: string }).text)).to.include({ xff: '127.0.0.1' });
  });
});
