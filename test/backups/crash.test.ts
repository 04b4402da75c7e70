// The daemon killed in the middle of a backup: after a restart the backup is `failed` with a
// reason, and its partial file is gone.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import { DaemonProcess } from '../helpers/daemon-process.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

describe('daemon killed mid-backup', function () {
  this.timeout(600_000);
  const secret = `crash-${uniq('key')}-0123456789`;
  let dataDir: string;
  let daemon: DaemonProcess;
  let client: BerthClient;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'berth-backup-crash-'));
    daemon = await DaemonProcess.create({
      ...requireDatabaseImages(),
      BERTH_DATA_DIR: dataDir,
      BERTH_BOOTSTRAP_KEY: secret,
      BERTH_PORT_RANGE: PORT_RANGES.backupCrash,
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

  it('marks the interrupted backup failed with a reason and removes its partial file', async () => {
    await daemon.start();
    const { project } = await client.createProject({ name: uniq('crash') });
    const { service } = await client.createService(project.id, { name: 'db', repoFullName: 'database:postgres' });
    const { deployment } = await client.deploy(service.id);
    expect((await waitForDeployment(client, service.id, deployment.id, ['running', 'failed'], 300_000)).status).to.equal('running');
    await client.databaseQuery(service.id, 'CREATE TABLE big AS SELECT g, md5(g::text) || repeat(md5(random()::text), 8) AS pad FROM generate_series(1, 1500000) g');

    const { backup } = await client.createBackup(service.id, 'disk');
    const dir = join(dataDir, 'backups', service.id);
    await until('the dump to be written', async () => existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.partial')), 60_000, 20);
    await daemon.stop('SIGKILL');

    await daemon.start();
    const after = (await client.listBackups(service.id)).backups.find((b) => b.id === backup.id)!;
    expect(after.status).to.equal('failed');
    expect(after.error).to.match(/daemon stopped/);
    expect(after.finishedAt).to.be.a('string');
    expect(readdirSync(dir)).to.deep.equal([]);
  });
});
