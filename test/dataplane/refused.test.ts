// A host port another program holds: the configuration that would make Caddy listen on it is not
// sent (Caddy 2.6 would keep a refused configuration's servers answering), so the deployment fails
// naming the address, its container is removed, and Caddy keeps running what it ran; once the port
// is free, the next deployment goes live.
import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { containersWithLabel, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { webApp } from '../helpers/apps.js';
import { httpText, waitForDeployment } from '../helpers/wait.js';

describe('a host port Caddy cannot listen on', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '20' });
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  it("fails the deployment with Caddy's reason and leaves Caddy as it was; once the port is free a deployment goes live", async () => {
    const { project } = await t.admin.createProject({ name: uniq('refused') });
    const repo = `acme/${uniq('refused')}` as const;
    await git.commit(repo, webApp('finally live'));
    const { service } = await t.admin.createService(project.id, { name: uniq('web'), repoFullName: repo, internalPort: 8080 });
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(service.hostPort!, '127.0.0.1', resolve));
    const before = await t.caddy!.config();
    try {
      const { deployment } = await t.admin.deploy(service.id);
      await waitForDeployment(t.admin, service.id, deployment.id, ['failed']);
      const { logs } = await t.admin.deploymentLogs(deployment.id);
      expect(logs.map((l) => l.line).join('\n')).to.match(
        new RegExp(`the new container could not be routed: Caddy cannot listen on 127\\.0\\.0\\.1:${service.hostPort}: address already in use by another program; the configuration was not sent`),
      );
      expect(containersWithLabel(`dev.berth.deployment=${deployment.id}`)).to.deep.equal([]);
      expect(await t.caddy!.config()).to.deep.equal(before);
    } finally {
      await new Promise((r) => squatter.close(r));
    }
    const { deployment } = await t.admin.deploy(service.id);
    await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('finally live\n');
  });
});
