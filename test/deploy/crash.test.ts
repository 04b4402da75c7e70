// The daemon killed in the middle of a build: after a restart the interrupted deployment is failed
// with a reason, nothing of it is left in Docker, and the earlier live container, adopted rather
// than restarted, still serves on the host port.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BerthClient } from '../../shared/client.js';
import { builtImagesOf, containersWithLabel, docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { slowBuildApp, webApp } from '../helpers/apps.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { TestCaddy } from '../helpers/caddy.js';
import { httpText, until, waitForDeployment } from '../helpers/wait.js';

describe('daemon killed mid-build', function () {
  this.timeout(300_000);
  const secret = `crash-${uniq('key')}-0123456789`;
  let git: GitServer;
  let dataDir: string;
  let child: ChildProcess | null = null;
  let client: BerthClient;
  let caddy: TestCaddy;

  async function startDaemon(port: number, env: Record<string, string> = {}): Promise<void> {
    child = spawn(process.execPath, [join(REPO_ROOT, 'dist/daemon/main.js')], {
      env: {
        ...process.env,
        BERTH_HOST: '127.0.0.1',
        BERTH_PORT: String(port),
        BERTH_DATA_DIR: dataDir,
        BERTH_BOOTSTRAP_KEY: secret,
        BERTH_GIT_BASE_URL: git.baseUrl,
        BERTH_PORT_RANGE: '46000-46999',
        ...caddy.env,
        ...env,
      },
      stdio: 'ignore',
    });
    client = new BerthClient(`http://127.0.0.1:${port}`, secret);
    await until('the daemon to answer', async () => (await fetch(`${client.baseUrl}/api/health`).catch(() => null))?.ok, 30_000);
  }

  async function stopDaemon(): Promise<void> {
    const exited = new Promise((r) => child!.once('exit', r));
    child!.kill('SIGTERM');
    await exited;
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    // host ports answer through Caddy, the data plane
    caddy = await TestCaddy.create();
    await caddy.start();
    dataDir = mkdtempSync(join(tmpdir(), 'berth-crash-'));
  });
  after(async () => {
    if (child && child.exitCode === null) {
      for (const p of (await client.listProjects()).projects) await client.deleteProject(p.id);
      child.kill('SIGTERM');
    }
    await git?.stop();
    await caddy?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails the interrupted deployment, removes its debris, and keeps the live one serving', async () => {
    const port = 46990;
    await startDaemon(port);
    const { project } = await client.createProject({ name: uniq('crash') });
    const repo = `acme/${uniq('crash')}` as const;
    await git.commit(repo, webApp('v1 survives'));
    const { service } = await client.createService(project.id, { name: 'web', repoFullName: repo, internalPort: 8080 });
    const first = (await client.deploy(service.id)).deployment;
    const live = await waitForDeployment(client, service.id, first.id, ['running']);
    const startedAt = docker('inspect', '--format', '{{.State.StartedAt}}', live.containerName!);

    await git.commit(repo, slowBuildApp(120));
    const second = (await client.deploy(service.id)).deployment;
    await until('the slow build to run', async () => (await client.deploymentLogs(second.id)).logs.some((l) => l.line.includes('tick 2')));
    const exited = new Promise((r) => child!.once('exit', r));
    child!.kill('SIGKILL');
    await exited;

    await startDaemon(port);
    const after = (await client.listDeployments(service.id)).deployments;
    expect(after.find((d) => d.id === second.id)).to.include({ status: 'failed' });
    expect(after.find((d) => d.id === second.id)!.finishedAt).to.be.a('string');
    expect(after.find((d) => d.id === first.id)).to.include({ status: 'running' });
    const { logs } = await client.deploymentLogs(second.id);
    expect(logs.at(-1)!.line).to.match(/daemon stopped while this deployment was building/);
    expect(containersWithLabel(`dev.berth.deployment=${second.id}`)).to.deep.equal([]);
    // the build's own step container goes with the cancelled build
    await until('no build container left', async () => !docker('ps', '-a', '--format', '{{.Command}}').includes('tick'), 20_000);
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('v1 survives\n');
    expect(docker('inspect', '--format', '{{.State.StartedAt}}', live.containerName!)).to.equal(startedAt);
    expect((await client.overview(service.id)).service).to.include({ status: 'active', reachable: true });
  });

  it('a service deleted while the Engine is unreachable answers 200; its container, image and network go at the next start', async () => {
    const port = 46991;
    if (child && child.exitCode === null) await stopDaemon();
    await startDaemon(port);
    const { project } = await client.createProject({ name: uniq('orphan') });
    const repo = `acme/${uniq('orphan')}` as const;
    await git.commit(repo, webApp('orphaned'));
    const { service } = await client.createService(project.id, { name: 'web', repoFullName: repo, internalPort: 8080 });
    const dep = (await client.deploy(service.id)).deployment;
    await waitForDeployment(client, service.id, dep.id, ['running']);
    expect(containersWithLabel(`dev.berth.service=${service.id}`)).to.have.length(1);
    await stopDaemon();

    await startDaemon(port, { BERTH_DOCKER_SOCKET: join(dataDir, 'no-docker.sock') });
    await client.deleteProject(project.id);
    expect((await client.listProjects()).projects.map((p) => p.id)).not.to.include(project.id);
    await stopDaemon();
    expect(containersWithLabel(`dev.berth.service=${service.id}`)).to.have.length(1);

    await startDaemon(port);
    await until('the leftovers to be removed', async () => containersWithLabel(`dev.berth.service=${service.id}`).length === 0 && builtImagesOf({ serviceId: service.id }).length === 0, 30_000);
    expect(docker('network', 'ls', '-q', '--filter', `name=berth-${project.id}`)).to.equal('');
  });
});
