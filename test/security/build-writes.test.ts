// A hostile tenant (a write key for its own project only) against the build: repositories whose
// symbolic links carry the names of the files Berth writes into a checkout, links that lead reads
// out of it, and a build whose output impersonates the Engine to steer image clean-up. In every
// case the canary directory outside the checkout stays as it was, and /api/health answers within
// 1 s throughout.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import type { Project } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { BUSYBOX_WEB, Canary, impersonatingBuild, reservedNameLinks, STATIC_SITE, watchHealth } from '../helpers/hostile-repos.js';
import { waitForDeployment } from '../helpers/wait.js';

/** Images (layers included) labelled as builds of this service. */
function buildLayersOf(serviceId: string): string[] {
  const ids = [...new Set(docker('images', '-a', '-q', '--filter', 'label=dev.berth.build').split('\n').filter(Boolean))];
  return ids.filter((id) => docker('image', 'inspect', '--format', '{{index .Config.Labels "dev.berth.build"}}', id).endsWith(`/${serviceId}`));
}

describe('security: what a build writes and reads stays inside the checkout', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let canary: Canary;
  let caDir: string;
  let project: Project;
  let tenant: BerthClient;

  before(async function () {
    this.timeout(300_000);
    requireDocker();
    git = await startGitServer();
    canary = new Canary();
    caDir = mkdtempSync(join(tmpdir(), 'berth-sec-ca-'));
    writeFileSync(join(caDir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nnot a real certificate, only copied\n-----END CERTIFICATE-----\n');
    t = await startTestDaemon({
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_HEALTH_TIMEOUT: '20',
      BERTH_BUILD_CA_FILE: join(caDir, 'ca.pem'),
      BERTH_AUTOBUILD_IMAGE_STATIC: 'berth-test/caddy:latest',
    });
    ({ project } = await t.admin.createProject({ name: uniq('hostile') }));
    tenant = await t.clientWith('write', [project.id]);
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    canary?.remove();
    rmSync(caDir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(canary.problems(), 'the canary outside the checkout').to.deep.equal([]);
  });

  async function deploy(files: Record<string, string>, extra: Record<string, unknown> = {}): Promise<{ status: string; log: string; serviceId: string; slowestHealthMs: number }> {
    const repo = `tenant/${uniq('r')}` as const;
    await git.commit(repo, files);
    const health = watchHealth(t.url);
    const { service } = await tenant.createService(project.id, { name: uniq('s'), repoFullName: repo, internalPort: 8080, ...extra });
    const { deployment } = await tenant.deploy(service.id);
    const done = await waitForDeployment(tenant, service.id, deployment.id, ['running', 'failed']);
    const slowestHealthMs = await health.stop();
    const log = (await tenant.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n');
    return { status: done.status, log, serviceId: service.id, slowestHealthMs };
  }

  it('autobuild: links named like every file Berth writes are replaced, never followed, and the log says so', async () => {
    const { status, log, slowestHealthMs } = await deploy({ ...STATIC_SITE, ...reservedNameLinks(canary) });
    expect(status, log).to.equal('running');
    for (const name of ['.berth-autobuild.Dockerfile', '.berth.Dockerfile', '.berth-build-ca.pem']) {
      expect(log).to.include(`the repository holds a symbolic link named ${name}, a name Berth reserves`);
    }
    expect(slowestHealthMs).to.be.lessThan(1000);
  });

  it("a Dockerfile build: the CA bundle and Berth's Dockerfile copy never go through the repository's links", async () => {
    const { status, log, slowestHealthMs } = await deploy({ ...BUSYBOX_WEB, ...reservedNameLinks(canary) });
    expect(status, log).to.equal('running');
    expect(log).to.include('the repository holds a symbolic link named .berth.Dockerfile');
    expect(log).to.include('the repository holds a symbolic link named .berth-build-ca.pem');
    expect(slowestHealthMs).to.be.lessThan(1000);
  });

  it('a Dockerfile reached through a link out of the checkout is refused, and its text never reaches the log', async () => {
    const outside = canary.existing('host-dockerfile');
    const { status, log } = await deploy({ 'Dockerfile#link': outside }, { buildMethod: 'dockerfile' });
    expect(status).to.equal('failed');
    expect(log).to.match(/points outside the repository|there is no Dockerfile/);
    expect(log).not.to.include('canary host-dockerfile');
  });

  it("the build plan never reads a server file through a link (package.json, a monorepo's lockfile)", async () => {
    const secret = canary.existing('package.json', JSON.stringify({ name: 'host-secret', scripts: { start: 'node host-secret.js' } }));
    const repo = `tenant/${uniq('plan')}` as const;
    await git.commit(repo, { 'web/package.json#link': secret, 'web/index.html': '<p>x</p>\n', 'pnpm-lock.yaml#link': canary.existing('lock') });
    const { service } = await tenant.createService(project.id, { name: uniq('plan'), repoFullName: repo, rootDir: 'web', internalPort: 8080 });
    const { plan } = await tenant.buildPlan(service.id);
    expect(JSON.stringify(plan)).not.to.include('host-secret');
    expect(plan.stack).to.equal('static');
    expect(plan.tool).not.to.equal('pnpm');
  });

  it('ids printed by a build step are never trusted for clean-up: an image the tenant does not own survives its failed build', async () => {
    // an untagged image nobody's build owns: exactly what an id-from-output clean-up would remove
    const victim = execFileSync('docker', ['build', '-q', '-'], {
      input: `FROM berth-test/busybox:latest\nLABEL dev.berth.sectest.victim=${uniq('v')}\n`,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'ignore'],
    }).trim();
    try {
      const { status, log, serviceId } = await deploy(impersonatingBuild(victim), { buildMethod: 'dockerfile' });
      expect(status).to.equal('failed');
      expect(log).to.include(`---> ${victim.replace(/^sha256:/, '').slice(0, 12)}`); // the lie was told
      expect(docker('image', 'inspect', '--format', '{{.Id}}', victim)).to.equal(victim);
      // and the layers the failed build did commit (found by the build label) are gone
      expect(buildLayersOf(serviceId)).to.deep.equal([]);
    } finally {
      spawnSync('docker', ['rmi', victim], { stdio: 'ignore' });
    }
  });

  it("deleting a service removes what its builds left untagged (a multi-stage Dockerfile's stages), found by the build label", async () => {
    const { status, log, serviceId } = await deploy(
      {
        Dockerfile: [
          'FROM berth-test/busybox:latest AS stage',
          'RUN echo staged > /staged.txt',
          'FROM berth-test/busybox:latest',
          'COPY --from=stage /staged.txt /www/index.html',
          'CMD ["sh", "-c", "exec httpd -f -p ${PORT} -h /www"]',
          '',
        ].join('\n'),
      },
      { buildMethod: 'dockerfile' },
    );
    expect(status, log).to.equal('running');
    expect(buildLayersOf(serviceId)).not.to.deep.equal([]);
    await tenant.deleteService(serviceId);
    expect(buildLayersOf(serviceId)).to.deep.equal([]);
  });

  it('leaves no checkout behind', () => {
    expect(readdirSync(join(t.dataDir, 'builds')).filter((n) => !n.startsWith('plan-'))).to.deep.equal([]);
  });
});
