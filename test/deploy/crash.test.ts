// The daemon killed in the middle of a build: after a restart the interrupted deployment is failed
// with a reason, nothing of it is left in Docker, and the earlier live container, adopted rather
// than restarted, still serves on the host port.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { builtImagesOf, containersWithLabel, docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { slowBuildApp, webApp } from '../helpers/apps.js';
import { DaemonProcess } from '../helpers/daemon-process.js';
import { TestCaddy } from '../helpers/caddy.js';
import { httpText, until, waitForDeployment } from '../helpers/wait.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

describe('daemon killed mid-build', function () {
  this.timeout(300_000);
  const secret = `crash-${uniq('key')}-0123456789`;
  let git: GitServer;
  let dataDir: string;
  let daemon: DaemonProcess;
  let client: BerthClient;
  let caddy: TestCaddy;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    // host ports answer through Caddy, the data plane
    caddy = await TestCaddy.create();
    await caddy.start();
    dataDir = mkdtempSync(join(tmpdir(), 'berth-crash-'));
    daemon = await DaemonProcess.create({
      BERTH_DATA_DIR: dataDir,
      BERTH_BOOTSTRAP_KEY: secret,
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_PORT_RANGE: PORT_RANGES.deployCrash,
      ...caddy.env,
    });
    client = daemon.client(secret);
  });
  after(async () => {
    if (daemon?.running) {
      for (const p of (await client.listProjects()).projects) await client.deleteProject(p.id);
      await daemon.stop();
    }
    await git?.stop();
    await caddy?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails the interrupted deployment, removes its debris, and keeps the live one serving', async () => {
    await daemon.start();
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
    await daemon.stop('SIGKILL');

    await daemon.start();
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

  it('while the Engine is unreachable, what needs it answers 503 and a service deleted answers 200; its container, image and network go at the next start', async () => {
    await daemon.stop();
    await daemon.start();
    const { project } = await client.createProject({ name: uniq('orphan') });
    const repo = `acme/${uniq('orphan')}` as const;
    await git.commit(repo, webApp('orphaned'));
    const { service } = await client.createService(project.id, { name: 'web', repoFullName: repo, internalPort: 8080 });
    const dep = (await client.deploy(service.id)).deployment;
    await waitForDeployment(client, service.id, dep.id, ['running']);
    expect(containersWithLabel(`dev.berth.service=${service.id}`)).to.have.length(1);
    await daemon.stop();

    await daemon.start({ BERTH_DOCKER_SOCKET: join(dataDir, 'no-docker.sock') });
    // What must ask the Engine says so: 503 with a reason to retry, not a 500 "internal error"
    for (const path of ['/api/swarm', '/api/nodes', `/api/services/${service.id}/instances`]) {
      const res = await client.request('GET', path);
      expect(res.status, path).to.equal(503);
      expect((res.body as { error: { code: string; message: string } }).error).to.deep.include({ code: 'docker_unavailable' });
      expect((res.body as { error: { message: string } }).error.message).to.match(/Docker Engine is not answering/);
    }
    await client.deleteProject(project.id);
    expect((await client.listProjects()).projects.map((p) => p.id)).not.to.include(project.id);
    await daemon.stop();
    expect(containersWithLabel(`dev.berth.service=${service.id}`)).to.have.length(1);

    await daemon.start();
    await until('the leftovers to be removed', async () => containersWithLabel(`dev.berth.service=${service.id}`).length === 0 && builtImagesOf({ serviceId: service.id }).length === 0, 30_000);
    expect(docker('network', 'ls', '-q', '--filter', `name=berth-${project.id}`)).to.equal('');
  });
});
