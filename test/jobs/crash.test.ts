// The daemon killed in the middle of a job run: after a restart the run is `failed` with the
// reason, never `running` forever, and its one-off container is gone.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { TestCaddy } from '../helpers/caddy.js';
import { DaemonProcess } from '../helpers/daemon-process.js';
import { containersWithLabel, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';
import { until, waitForDeployment } from '../helpers/wait.js';

describe('daemon killed mid-job-run', function () {
  this.timeout(300_000);
  const secret = `crash-${uniq('key')}-0123456789`;
  let dataDir: string;
  let daemon: DaemonProcess;
  let client: BerthClient;
  let caddy: TestCaddy;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    caddy = await TestCaddy.create();
    await caddy.start();
    dataDir = mkdtempSync(join(tmpdir(), 'berth-job-crash-'));
    daemon = await DaemonProcess.create({ BERTH_DATA_DIR: dataDir, BERTH_BOOTSTRAP_KEY: secret, BERTH_PORT_RANGE: PORT_RANGES.jobCrash, BERTH_HEALTH_TIMEOUT: '20', ...caddy.env });
    client = daemon.client(secret);
  });
  after(async () => {
    if (daemon?.running) {
      for (const p of (await client.listProjects()).projects) await client.deleteProject(p.id);
      await daemon.stop();
    }
    await caddy?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails the interrupted run with the reason and removes its container', async () => {
    await daemon.start();
    const { project } = await client.createProject({ name: uniq('crash') });
    const { service } = await client.createService(project.id, { name: 'app', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 });
    const { deployment } = await client.deploy(service.id);
    expect((await waitForDeployment(client, service.id, deployment.id, ['running', 'failed'], 120_000)).status).to.equal('running');
    const { job } = await client.createJob(service.id, { name: 'long', schedule: '0 3 * * *', command: ['sleep', '300'] });
    const { run } = await client.runJob(service.id, job.id);
    await until('the run container', async () => containersWithLabel(`dev.berth.job-run=${run.id}`).length > 0, 30_000);
    await daemon.stop('SIGKILL');
    expect(containersWithLabel(`dev.berth.job-run=${run.id}`)).to.have.length(1);

    await daemon.start();
    const after = (await client.listJobRuns(service.id, job.id)).runs.find((r) => r.id === run.id)!;
    expect(after).to.include({ status: 'failed', error: 'the daemon stopped during the run', exitCode: null });
    expect(after.finishedAt).to.be.a('string');
    expect(containersWithLabel(`dev.berth.job-run=${run.id}`)).to.deep.equal([]);
  });
});
