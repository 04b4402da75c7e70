// BERTH_BUILD_CA_FILE: a build step that fetches over HTTPS from a server whose certificate is
// signed by a private CA succeeds with the setting and fails without it.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { waitForDeployment } from '../helpers/wait.js';

function makeCa(dir: string, ip: string): { ca: string; key: string; cert: string } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Berth Test CA');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', `/CN=${ip}`);
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=IP:${ip}\n`);
  run('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.pem', '-days', '2', '-extfile', 'ext.cnf');
  return { ca: join(dir, 'ca.pem'), key: readFileSync(join(dir, 'srv.key'), 'utf8'), cert: readFileSync(join(dir, 'srv.pem'), 'utf8') };
}

/** The host's address on Docker's default bridge, where build containers reach the host. */
function bridgeGateway(): string {
  const fromDocker = docker('network', 'inspect', 'bridge', '--format', '{{range .IPAM.Config}}{{.Gateway}}{{end}}');
  if (fromDocker) return fromDocker;
  // Node lists only interfaces that are up; docker0 is down while no container uses it.
  const m = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(execFileSync('ip', ['-4', '-o', 'addr', 'show', 'docker0'], { encoding: 'utf8' }));
  if (!m) throw new Error('no IPv4 address on the docker0 bridge');
  return m[1]!;
}

describe('extra CA bundle for builds', function () {
  this.timeout(180_000);
  let dir: string;
  let git: GitServer;
  let server: https.Server;
  let gateway: string;
  let caFile: string;
  let repo: `${string}/${string}`;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    dir = mkdtempSync(join(tmpdir(), 'berth-ca-'));
    gateway = bridgeGateway();
    const { ca, key, cert } = makeCa(dir, gateway);
    caFile = ca;
    // Listens only on the host's side of Docker's bridge, which the build containers reach.
    server = https.createServer({ key, cert }, (_req, res) => res.end('secret sauce\n'));
    await new Promise<void>((r) => server.listen(0, gateway, () => r()));
    const port = (server.address() as AddressInfo).port;
    git = await startGitServer();
    repo = `acme/${uniq('ca')}`;
    const fetchScript = `require('https').get('https://${gateway}:${port}/', (r) => { let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => { console.log('fetched over https: ' + b.trim()); }); }).on('error', (e) => { console.error('https failed: ' + e.message); process.exit(1); })`;
    await git.commit(repo, {
      Dockerfile: [
        'FROM berth-test/node:latest AS fetch',
        `RUN node -e "${fetchScript.replace(/"/g, '\\"')}" > /fetched.txt && cat /fetched.txt`,
        'FROM berth-test/busybox:latest',
        'COPY --from=fetch /fetched.txt /www/index.html',
        'CMD ["sh", "-c", "exec httpd -f -p ${PORT} -h /www"]',
        '',
      ].join('\n'),
    });
  });
  after(async () => {
    server?.close();
    await git?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function deployWith(env: Record<string, string>): Promise<{ t: TestDaemon; status: string; log: string; hostPort: number }> {
    const t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15', ...env });
    const { project } = await t.admin.createProject({ name: uniq('ca') });
    const { service } = await t.admin.createService(project.id, { name: 'fetcher', repoFullName: repo, internalPort: 8080 });
    const { deployment } = await t.admin.deploy(service.id);
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed']);
    const log = (await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n');
    return { t, status: done.status, log, hostPort: service.hostPort! };
  }

  it('a build that fetches over HTTPS from a private CA works with BERTH_BUILD_CA_FILE', async () => {
    const { t, status, log, hostPort } = await deployWith({ BERTH_BUILD_CA_FILE: caFile });
    try {
      expect(status, log).to.equal('running');
      expect(log).to.include('fetched over https: secret sauce');
      expect(await (await fetch(`http://127.0.0.1:${hostPort}/`)).text()).to.equal('fetched over https: secret sauce\n');
    } finally {
      for (const p of (await t.admin.listProjects()).projects) await t.admin.deleteProject(p.id);
      await t.stop();
    }
  });

  it('and fails without it, saying why', async () => {
    const { t, status, log } = await deployWith({});
    try {
      expect(status).to.equal('failed');
      expect(log).to.match(/https failed: (self-signed certificate|unable to verify)/);
    } finally {
      for (const p of (await t.admin.listProjects()).projects) await t.admin.deleteProject(p.id);
      await t.stop();
    }
  });
});
