// The database half of rebuilding a server from Berth's own backup: an archive of a server whose
// PostgreSQL keeps its backups in S3, restored into a fresh data dir (what `install.sh --restore`
// does before the first start), then `berth server redeploy-restored` (its last step) against the
// daemon started on it. The old server's containers and volumes are gone, as with a lost machine:
// the data comes back only through the S3 backup, opened with the stored credentials that the
// archive's secret still unseals. A newer backup that was only on the old server's disk is passed
// over, and the output says so. (The systemd VPS suite runs the whole installer path with an app.)
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backup } from '../../shared/types.js';
import { createServerArchive, restoreServerArchive } from '../../daemon/server-tools/server-archive.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { containersWithLabel, docker } from '../helpers/docker.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const PASSPHRASE = 'correct horse battery staple';

/** `berth server redeploy-restored` as install.sh runs it: on the server, the daemon on loopback. */
function redeployRestored(dataDir: string, port: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BERTH_')) env[k] = v;
    Object.assign(env, { BERTH_DATA_DIR: dataDir, BERTH_PORT: String(port), BERTH_HOST: '127.0.0.1' });
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/daemon/cli.js'), 'server', 'redeploy-restored'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe("Berth's own backup restored on a new server: databases come back from their S3 backups", function () {
  this.timeout(600_000);
  let images: Record<string, string>;
  let s3: TestS3Server;
  let old: TestDaemon | null = null;
  let fresh: TestDaemon | null = null;
  const scratch = mkdtempSync(join(tmpdir(), 'berth-server-restore-'));

  before(async function () {
    this.timeout(1_200_000);
    images = requireDatabaseImages();
    s3 = await startS3Server();
  });
  after(async () => {
    await old?.stop();
    if (fresh) {
      for (const p of (await fresh.admin.listProjects()).projects) await fresh.admin.deleteProject(p.id);
      await fresh.stop();
    }
    await s3?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('redeploy-restored deploys the database again and restores its newest backup that has a copy in S3, passing over a newer disk-only one', async () => {
    old = await startTestDaemon(images);
    const { project } = await old.admin.createProject({ name: 'kept-shop' });
    const { service } = await old.admin.createService(project.id, { name: 'shop-db', repoFullName: 'database:postgres' });
    const first = await old.admin.deploy(service.id);
    expect((await waitForDeployment(old.admin, service.id, first.deployment.id, ['running', 'failed'], 600_000)).status).to.equal('running');
    await old.admin.putBackupStorage({
      endpoint: s3.endpoint,
      region: s3.region,
      bucket: s3.bucket,
      prefix: 'berth/',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    const finished = (id: string) =>
      until<Backup>('the backup to finish', async () => (await old!.admin.listBackups(service.id)).backups.find((b) => b.id === id && b.status !== 'running'), 240_000, 250);
    await old.admin.databaseQuery(service.id, 'CREATE TABLE orders (id int, item text)');
    await old.admin.databaseQuery(service.id, "INSERT INTO orders VALUES (1, 'kept through S3')");
    const remote = await finished((await old.admin.createBackup(service.id, 'remote')).backup.id);
    expect(remote.status, remote.error ?? '').to.equal('succeeded');
    await old.admin.databaseQuery(service.id, "INSERT INTO orders VALUES (2, 'only on the lost disk')");
    const local = await finished((await old.admin.createBackup(service.id, 'disk')).backup.id);
    expect(local.status, local.error ?? '').to.equal('succeeded');

    const etcDir = join(scratch, 'etc-a');
    const made = await createServerArchive({ dataDir: old.dataDir, etcDir, caddyHome: join(scratch, 'caddy-a') }, PASSPHRASE, join(scratch, 'out'));

    // the machine is lost: the daemon, its containers, its volumes and its disk
    await old.stop();
    old = null;
    for (const id of containersWithLabel(`dev.berth.service=${service.id}`)) docker('rm', '-f', id);
    const volumes = docker('volume', 'ls', '-q', '--filter', `label=dev.berth.service=${service.id}`);
    if (volumes) docker('volume', 'rm', '-f', ...volumes.split('\n'));
    expect(docker('volume', 'ls', '-q', '--filter', `label=dev.berth.service=${service.id}`)).to.equal('');

    const dataDir = join(scratch, 'data-b');
    const manifest = await restoreServerArchive(made.file, PASSPHRASE, { dataDir, etcDir: join(scratch, 'etc-b'), caddyHome: join(scratch, 'caddy-b') });
    expect(manifest.counts).to.include({ projects: 1, services: 1 });
    fresh = await startTestDaemon({ ...images, BERTH_DATA_DIR: dataDir });
    const port = Number(new URL(fresh.url).port);
    const r = await redeployRestored(dataDir, port);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.include('kept-shop/shop-db: deploying');
    expect(r.stderr).to.include(`backup ${remote.id} of ${remote.createdAt} restored (1 newer one was on the old server's disk only)`);
    expect((await fresh.admin.databaseQuery(service.id, 'SELECT id, item FROM orders ORDER BY id')).rows).to.deep.equal([{ id: 1, item: 'kept through S3' }]);
    // the restore's own key was revoked when it finished
    expect((await fresh.admin.listKeys()).keys.filter((k) => k.name.startsWith('restore-'))).to.deep.equal([]);
  });
});
