// A hostile tenant against git: repository URLs that point at the server itself (file://, local
// paths, ext::, ssh, git://), a clone that would borrow the host's git identity (a global
// gitconfig and ~/.netrc planted for the test), a repository too large and a git server that
// never answers (clone size and time caps), and build-plan previews fired in parallel with read
// keys. Every refusal is a 4xx that changes nothing; the daemon answers /api/health within 1 s.
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, type BerthClient } from '../../shared/client.js';
import type { Project, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { Canary, incompressible, stallingServer, watchHealth } from '../helpers/hostile-repos.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const TOKEN = 'tok_sec_build_0123456789abcdef';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the request to be refused');
}

describe('security: git sources, clone limits and build-plan previews', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let git: GitServer;
  let privateGit: GitServer;
  let stall: Awaited<ReturnType<typeof stallingServer>>;
  let canary: Canary;
  let localRepo: string;
  let project: Project;
  let tenant: BerthClient;

  before(async function () {
    this.timeout(120_000);
    git = await startGitServer();
    privateGit = await startGitServer({ token: TOKEN });
    stall = await stallingServer();
    canary = new Canary();
    // a repository on the server's own disk, the kind file:// and local paths would clone
    localRepo = mkdtempSync(join(tmpdir(), 'berth-sec-local-'));
    execFileSync('git', ['init', '--quiet', '--bare', localRepo], { env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    t = await startTestDaemon({
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_CLONE_MAX_MB: '1',
      BERTH_CLONE_TIMEOUT: '3',
      BERTH_BUILD_PLAN_CONCURRENCY: '2',
      BERTH_BUILD_PLAN_PER_KEY: '1',
    });
    ({ project } = await t.admin.createProject({ name: uniq('hostile') }));
    tenant = await t.clientWith('write', [project.id]);
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    await privateGit?.stop();
    stall?.stop();
    canary?.remove();
    rmSync(localRepo, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(canary.problems(), 'the canary outside the checkout').to.deep.equal([]);
  });

  const builds = (): string[] => {
    try {
      return readdirSync(join(t.dataDir, 'builds'));
    } catch {
      return [];
    }
  };

  async function deployAndWait(client: BerthClient, service: Service): Promise<{ status: string; log: string; slowestHealthMs: number }> {
    const health = watchHealth(t.url);
    const { deployment } = await client.deploy(service.id);
    const done = await waitForDeployment(client, service.id, deployment.id, ['running', 'failed']);
    const slowestHealthMs = await health.stop();
    const log = (await client.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n');
    return { status: done.status, log, slowestHealthMs };
  }

  describe('repository URLs', () => {
    const LOCAL_OR_NOT_HTTP = () => [
      `file://${localRepo}`,
      `FILE://${localRepo}`,
      localRepo,
      './app',
      '../app',
      'ext::sh -c touch% /tmp/berth-sec-ext',
      'ssh://git@127.0.0.1/srv/app.git',
      'git://127.0.0.1/app.git',
      'git@127.0.0.1:srv/app.git',
      'http:///srv/app.git',
    ];

    it('anything but http(s) or owner/name is refused with 400 at create, and nothing is created', async () => {
      const before = (await t.admin.getProject(project.id)).project.services.length;
      for (const repoUrl of LOCAL_OR_NOT_HTTP()) {
        const err = await apiError(tenant.createService(project.id, { name: uniq('bad'), repoUrl }));
        expect(err.status, repoUrl).to.equal(400);
        expect(err.code, repoUrl).to.equal('invalid_repo_url');
      }
      expect((await t.admin.getProject(project.id)).project.services.length).to.equal(before);
    });

    it('and refused with 400 in a patch, which changes nothing', async () => {
      const { service } = await tenant.createService(project.id, { name: uniq('ok'), repoUrl: git.urlOf('tenant/ok'), branch: 'main' });
      const before = await t.admin.overview(service.id);
      for (const repoUrl of LOCAL_OR_NOT_HTTP()) {
        const err = await apiError(tenant.patchService(service.id, { branch: 'other', repoUrl } as never));
        expect(err.status, repoUrl).to.equal(400);
      }
      expect(await t.admin.overview(service.id)).to.deep.equal(before);
    });

    it('a row stored before the rule fails its deployment before any clone, and its build plan answers 400', async () => {
      const { service } = await tenant.createService(project.id, { name: uniq('old'), repoUrl: git.urlOf('tenant/old') });
      for (const repoUrl of [`file://${localRepo}`, localRepo]) {
        await t.daemon.store.services.update(service.id, { repoUrl });
        const { status, log } = await deployAndWait(tenant, service);
        expect(status).to.equal('failed');
        expect(log).to.include('is not http(s); Berth clones only https:// and http:// URLs');
        expect(log).not.to.include('Cloning');
        const err = await apiError(tenant.buildPlan(service.id));
        expect(err.status).to.equal(400);
      }
    });
  });

  // Services on a second git server on this host are the operator's (a key over all projects gives
  // them): a key over selected projects clones only from BERTH_GIT_BASE_URL or another server
  // (test/security/clone-reach.test.ts). The tenant deploys and previews them.
  describe("the host's git identity", () => {
    const saved: Record<string, string | undefined> = {};
    let home: string;

    before(async () => {
      await privateGit.commit('tenant/private', { 'index.html': 'private\n' });
      home = mkdtempSync(join(tmpdir(), 'berth-sec-home-'));
      writeFileSync(join(home, '.gitconfig'), `[http]\n\textraHeader = Authorization: ${basic('gitconfig', TOKEN)}\n`);
      writeFileSync(join(home, '.netrc'), `machine 127.0.0.1 login netrc password ${TOKEN}\n`);
      for (const key of ['HOME', 'XDG_CONFIG_HOME']) saved[key] = process.env[key];
      process.env.HOME = home;
      delete process.env.XDG_CONFIG_HOME;
    });

    after(() => {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      rmSync(home, { recursive: true, force: true });
    });

    it('a global gitconfig and ~/.netrc on the host are never used by a clone', async () => {
      // proof the planted identity works for plain git on this machine
      // (asynchronously: the git server runs in this process)
      const plain = await promisify(execFile)('git', ['ls-remote', privateGit.urlOf('tenant/private')], { env: { PATH: process.env.PATH, HOME: home, GIT_TERMINAL_PROMPT: '0' } });
      expect(plain.stdout).to.include('refs/heads/main');
      const { service } = await t.admin.createService(project.id, { name: uniq('priv'), repoUrl: privateGit.urlOf('tenant/private') });
      const seen = privateGit.requests.length;
      const err = await apiError(tenant.buildPlan(service.id));
      expect(err.status).to.equal(502);
      expect(err.message).to.equal('repository not found or access denied');
      const sent = privateGit.requests.slice(seen).map((r) => r.authorization);
      expect(sent).not.to.include(basic('gitconfig', TOKEN));
      expect(sent).not.to.include(basic('netrc', TOKEN));
      const { status, log } = await deployAndWait(tenant, service);
      expect(status).to.equal('failed');
      expect(log).to.include('repository not found or access denied');
      expect(
        privateGit.requests
          .slice(seen)
          .map((r) => r.authorization)
          .filter((a) => a !== undefined),
      ).to.deep.equal([]);
    });
  });

  describe('clone limits', () => {
    it('a repository over BERTH_CLONE_MAX_MB fails the deployment with a clear line and leaves nothing behind', async () => {
      const repo = `tenant/${uniq('big')}` as const;
      await git.commit(repo, { 'blob.txt': incompressible(6 * 1024 * 1024), 'index.html': 'big\n' });
      const { service } = await tenant.createService(project.id, { name: uniq('big'), repoFullName: repo });
      const { status, log, slowestHealthMs } = await deployAndWait(tenant, service);
      expect(status).to.equal('failed');
      expect(log).to.include('the repository is larger than 1 MB on disk (BERTH_CLONE_MAX_MB); the clone was stopped and removed');
      expect(builds()).to.deep.equal([]);
      expect(slowestHealthMs).to.be.lessThan(1000);
    });

    it('a clone over BERTH_CLONE_TIMEOUT fails the deployment with a clear line and leaves nothing behind', async () => {
      const { service } = await t.admin.createService(project.id, { name: uniq('slow'), repoUrl: stall.url('tenant/slow') });
      const { status, log, slowestHealthMs } = await deployAndWait(tenant, service);
      expect(status).to.equal('failed');
      expect(log).to.include('git clone took longer than 3 s (BERTH_CLONE_TIMEOUT) and was stopped');
      expect(builds()).to.deep.equal([]);
      expect(slowestHealthMs).to.be.lessThan(1000);
    });
  });

  describe('build-plan previews (a read key is enough)', () => {
    it('run at most BERTH_BUILD_PLAN_PER_KEY per key and BERTH_BUILD_PLAN_CONCURRENCY in all; one more answers 429 at once', async () => {
      const { service } = await t.admin.createService(project.id, { name: uniq('plan'), repoUrl: stall.url('tenant/plan') });
      const [a, b, c] = await Promise.all([1, 2, 3].map(() => t.clientWith('read', [project.id])));
      const health = watchHealth(t.url);
      const opened = stall.connections();
      const first = apiError(a!.buildPlan(service.id));
      await until('the first preview to reach git', async () => stall.connections() > opened, 10_000, 50);
      const sameKey = await apiError(a!.buildPlan(service.id));
      expect([sameKey.status, sameKey.code]).to.deep.equal([429, 'too_many_build_plans']);
      const second = apiError(b!.buildPlan(service.id));
      await until('the second preview to reach git', async () => stall.connections() > opened + 1, 10_000, 50);
      const overall = await apiError(c!.buildPlan(service.id));
      expect([overall.status, overall.code]).to.deep.equal([429, 'too_many_build_plans']);
      // both running previews obey the clone time cap, then the slots are free again
      for (const err of await Promise.all([first, second])) {
        expect(err.status).to.equal(502);
        expect(err.message).to.include('BERTH_CLONE_TIMEOUT');
      }
      expect((await apiError(c!.buildPlan(service.id))).status).to.equal(502);
      expect(await health.stop()).to.be.lessThan(1000);
      expect(builds().filter((n) => n.startsWith('plan-'))).to.deep.equal([]);
    });
  });
});
