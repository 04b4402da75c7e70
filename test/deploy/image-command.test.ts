// An image service's startCommand: it replaces the image's CMD (as for a built image), and an image
// with no command at all fails its deployment saying to set one, not with the Engine's bare words.
import { expect } from 'chai';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { waitForDeployment } from '../helpers/wait.js';

describe('image services and their start command', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let projectId: string;

  before(async () => {
    const busybox = requireDocker();
    t = await startTestDaemon({ BERTH_HEALTH_TIMEOUT: '30' });
    projectId = (await t.admin.createProject({ name: uniq('imgcmd') })).project.id;
    // busybox imported from its binary: an image with no CMD and no ENTRYPOINT
    expect(busybox).to.equal('berth-test/busybox:latest');
  });
  after(async () => t?.stop());

  it('runs an image with no CMD of its own with the service startCommand, which answers on $PORT', async () => {
    const { service } = await t.admin.createService(projectId, {
      name: uniq('cmd'),
      dockerImage: 'berth-test/busybox:latest',
      internalPort: 8080,
      startCommand: 'mkdir -p /srv && echo started > /srv/index.html && exec httpd -f -p "$PORT" -h /srv',
    });
    const { deployment } = await t.admin.deploy(service.id);
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed']);
    const lines = (await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line);
    expect(done.status, lines.join('\n')).to.equal('running');
  });

  it('fails a deployment of an image with no command, saying to set startCommand', async () => {
    const { service } = await t.admin.createService(projectId, { name: uniq('nocmd'), dockerImage: 'berth-test/busybox:latest', internalPort: 8080 });
    const { deployment } = await t.admin.deploy(service.id);
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed']);
    expect(done.status).to.equal('failed');
    const lines = (await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line);
    expect(lines.join('\n')).to.match(/has no command to run \(no CMD or ENTRYPOINT\): set the service's startCommand/);
  });
});
