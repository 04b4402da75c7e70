// A database redeploy interrupted by a crash: the redeploy stops the live container before the new
// one starts (one server per data volume); the daemon is killed (SIGKILL) while the new one has not
// answered yet. After a restart the new container is gone, the previous one is started again (not
// removed as debris), and the database answers with its data.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { containersWithLabel, docker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { DaemonProcess } from '../helpers/daemon-process.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

const MiB = 1024 * 1024;

describe('security: a database redeploy interrupted by a crash', function () {
  this.timeout(600_000);
  const secret = `dbcrash-${uniq('key')}-0123456789`;
  let dataDir: string;
  let daemon: DaemonProcess;
  let client: BerthClient;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'berth-db-crash-'));
    daemon = await DaemonProcess.create({
      ...requireDatabaseImages(),
      BERTH_DATA_DIR: dataDir,
      BERTH_BOOTSTRAP_KEY: secret,
      BERTH_PORT_RANGE: PORT_RANGES.dbCrash,
      BERTH_CADDY_ADMIN: 'http://127.0.0.1:1',
    });
    client = daemon.client(secret);
  });
  after(async () => {
    if (daemon?.running) {
      for (const p of (await client.listProjects()).projects) await client.deleteProject(p.id);
      await daemon.stop();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts the stopped previous container again and the database answers with its data', async () => {
    await daemon.start();
    const { project } = await client.createProject({ name: uniq('dbcrash') });
    const { service } = await client.createService(project.id, { name: 'db', repoFullName: 'database:postgres' });
    const first = (await client.deploy(service.id)).deployment;
    const live = await waitForDeployment(client, service.id, first.id, ['running', 'failed'], 300_000);
    expect(live.status).to.equal('running');
    // a database container runs with the database defaults
    const host = JSON.parse(docker('inspect', '--format', '{{json .HostConfig}}', live.containerName!)) as Record<string, number>;
    expect(host).to.include({ Memory: 2048 * MiB, PidsLimit: 4096 });
    await client.databaseQuery(service.id, "CREATE TABLE kept AS SELECT 'survives the crash'::text AS note");

    const second = (await client.deploy(service.id)).deployment;
    // the new container exists only after the old one was stopped; hold it before it can answer
    const fresh = await until('the new database container', async () => containersWithLabel(`dev.berth.deployment=${second.id}`)[0], 60_000, 20);
    docker('pause', fresh);
    expect(docker('inspect', '--format', '{{.State.Running}}', live.containerName!)).to.equal('false');
    await daemon.stop('SIGKILL');

    await daemon.start();
    const deployments = (await client.listDeployments(service.id)).deployments;
    expect(deployments.find((d) => d.id === second.id)).to.include({ status: 'failed' });
    expect(deployments.find((d) => d.id === first.id)).to.include({ status: 'running' });
    expect(containersWithLabel(`dev.berth.deployment=${second.id}`)).to.deep.equal([]);
    expect(docker('inspect', '--format', '{{.State.Running}}', live.containerName!)).to.equal('true');
    const answer = await until(
      'the database to answer',
      async () => (await client.request<{ rows: { note: string }[] }>('POST', `/api/services/${service.id}/database/query`, { sql: 'SELECT note FROM kept' })).body.rows?.[0]?.note,
      120_000,
      500,
    );
    expect(answer).to.equal('survives the crash');
    expect((await client.overview(service.id)).service.status).to.equal('active');
    const { logs } = await client.deploymentLogs(first.id);
    expect(logs.map((l) => l.line).join('\n')).to.match(/started again/);
  });
});
