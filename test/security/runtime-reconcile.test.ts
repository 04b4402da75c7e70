// Docker coming up after Berth: a daemon started while the Engine's socket does not exist serves
// its API, and once the socket appears it adopts the live containers a previous run on the same
// data dir left (its reconciliation was pending until then and then ran, `reachable` is true, the
// container was not restarted). Apps keep serving through Caddy all along (test/dataplane/), so the
// host port is not what shows adoption here.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BerthClient } from '../../shared/client.js';
import { readConfig } from '../../daemon/config.js';
import { startDaemon, type RunningDaemon } from '../../daemon/server.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { webApp } from '../helpers/apps.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

describe('security: reconciliation waits for the Docker Engine', function () {
  this.timeout(180_000);
  const secret = `reconcile-${uniq('key')}-0123456789`;
  let git: GitServer;
  let dataDir: string;
  let daemon: RunningDaemon | null = null;
  let projectId: string | null = null;

  async function start(env: Record<string, string> = {}): Promise<BerthClient> {
    const config = readConfig({
      BERTH_HOST: '127.0.0.1',
      BERTH_PORT: '0',
      BERTH_DATA_DIR: dataDir,
      BERTH_BOOTSTRAP_KEY: secret,
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_PORT_RANGE: PORT_RANGES.runtimeReconcile,
      BERTH_CADDY_ADMIN: 'http://127.0.0.1:1',
      ...env,
    });
    daemon = await startDaemon(config, () => undefined);
    return new BerthClient(daemon.url, secret);
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    dataDir = mkdtempSync(join(tmpdir(), 'berth-reconcile-'));
  });
  after(async () => {
    await daemon?.stop();
    // clean up through a daemon that reaches Docker
    const client = await start();
    if (projectId) await client.deleteProject(projectId);
    await daemon?.stop();
    await git?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('adopts the live containers of an earlier run once the Engine socket appears', async () => {
    let client = await start();
    const { project } = await client.createProject({ name: uniq('late-docker') });
    projectId = project.id;
    const repo = `acme/${uniq('app')}` as const;
    await git.commit(repo, webApp('adopted later'));
    const { service } = await client.createService(project.id, { name: 'web', repoFullName: repo, internalPort: 8080 });
    const dep = (await client.deploy(service.id)).deployment;
    const live = await waitForDeployment(client, service.id, dep.id, ['running']);
    const startedAt = docker('inspect', '--format', '{{.State.StartedAt}}', live.containerName!);
    await daemon!.stop();
    daemon = null;

    // the Engine's socket is not there yet
    const socketDir = join(dataDir, 'later');
    mkdirSync(socketDir);
    const socket = join(socketDir, 'docker.sock');
    client = await start({ BERTH_DOCKER_SOCKET: socket });
    expect((await fetch(`${client.baseUrl}/api/health`)).status).to.equal(200);
    expect((await client.listDeployments(service.id)).deployments.find((d) => d.id === dep.id)).to.include({ status: 'running' });
    const pending = daemon!.engine.pendingReconcile;
    expect(pending, 'reconciliation waits for the Engine').to.not.equal(null);

    symlinkSync('/var/run/docker.sock', socket);
    await pending!.done;
    await until('the service to be reachable', async () => (await client.overview(service.id)).service.reachable, 10_000);
    expect((await client.overview(service.id)).service.status).to.equal('active');
    expect(docker('inspect', '--format', '{{.State.StartedAt}}', live.containerName!), 'adopted, not restarted').to.equal(startedAt);
    expect((await client.listDeployments(service.id)).deployments.find((d) => d.id === dep.id)).to.include({ status: 'running' });
  });
});
