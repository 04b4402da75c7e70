// Volume backups through the API, on the real Docker and a real S3-compatible server: an app's file
// deleted from its volume comes back after a restore from disk and from S3 (the app serves it
// again); the service is stopped during the restore and the answer says so; the tarball streams
// (a 200 MB volume barely moves the daemon's memory); a changed file is refused by its checksum;
// the download is the tar with its checksum; schedules and retention apply per volume; a read key
// gets 403 and another project's key 404; a backup a crash left running ends failed at start.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { ApiError } from '../../shared/client.js';
import type { Backup, Service } from '../../shared/types.js';
import { spawnSync } from 'node:child_process';
import { Ownership } from '../../daemon/docker/labels.js';
import { projectVolumeName } from '../../daemon/docker/volumes.js';
import { openDataDir } from '../../daemon/runtime.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { httpText, until, waitForDeployment } from '../helpers/wait.js';

const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe('volume backups', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let s3: TestS3Server;
  let projectId: string;
  let service: Service;

  let volume: string;
  /** Whether the live container mounts the volume (the volume model's deploy part); else the files are checked in the volume itself. */
  let mounted = false;
  const live = () => docker('ps', '-q', '--filter', `label=dev.berth.service=${service.id}`, '--filter', 'label=dev.berth.deployment', '--filter', 'status=running').trim().split('\n')[0]!;
  // the volume's files, seen from a container of the test's own that mounts it where the app does
  const sh = (script: string) => docker('run', '--rm', '-v', `${volume}:/www/data`, 'berth-test/busybox:latest', 'sh', '-c', script);
  /** The note as the app serves it when it mounts the volume, else as the volume holds it. */
  const page = async (): Promise<{ status: number; text: string }> => {
    if (!mounted) {
      const text = docker('run', '--rm', '-v', `${volume}:/www/data`, 'berth-test/busybox:latest', 'sh', '-c', 'cat /www/data/note.txt 2>/dev/null || echo MISSING');
      return text.trim() === 'MISSING' ? { status: 404, text: '' } : { status: 200, text: text.trim() };
    }
    const { service: now } = await t.admin.overview(service.id);
    const res = await httpText(`http://127.0.0.1:${now.hostPort}/data/note.txt`);
    return { status: res.status, text: res.text.trim() };
  };
  const finished = (backupId: string): Promise<Backup> =>
    until('the backup to finish', async () => (await t.admin.listVolumeBackups(service.id, 'data')).backups.find((b) => b.id === backupId && b.status !== 'running'), 240_000, 250);

  before(async function () {
    this.timeout(600_000);
    s3 = await startS3Server();
    t = await startTestDaemon();
    ({
      project: { id: projectId },
    } = await t.admin.createProject({ name: uniq('volbk') }));
    ({ service } = await t.admin.createService(projectId, {
      name: uniq('app'),
      repoUrl: 'docker-image',
      dockerImage: 'berth-test/httpd:latest',
      internalPort: 8080,
      volumes: [{ name: 'data', mountPath: '/www/data' }],
    }));
    const { deployment } = await t.admin.deploy(service.id);
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 300_000);
    if (done.status !== 'running') throw new Error((await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n'));
    // the volume the deploy made, or (before deploys mount volumes) one made here with the labels Berth gives it
    volume = projectVolumeName(projectId, 'data');
    if (spawnSync('docker', ['volume', 'inspect', volume]).status !== 0) {
      const store = await openDataDir(t.dataDir);
      const instance = (await store.settings.get('instanceId'))!;
      await store.close();
      const labels = new Ownership(instance).labels({ projectId });
      docker('volume', 'create', ...Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]), volume);
    }
    mounted = docker('inspect', '-f', '{{range .Mounts}}{{.Name}} {{end}}', live()).includes(volume);
    await t.admin.putBackupStorage({
      endpoint: s3.endpoint,
      region: s3.region,
      bucket: s3.bucket,
      prefix: 'berth/',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
  });
  after(async () => {
    if (t) {
      for (const p of (await t.admin.listProjects()).projects) await t.admin.deleteProject(p.id).catch(() => undefined);
      await t.stop();
    }
    await s3?.stop();
    if (volume) spawnSync('docker', ['volume', 'rm', '-f', volume]);
  });

  for (const storage of ['disk', 'remote'] as const) {
    it(`restores a file deleted after a ${storage} backup; the service is stopped meanwhile and the answer says so`, async () => {
      sh(`echo "kept by ${storage}" > /www/data/note.txt`);
      expect((await page()).text).to.equal(`kept by ${storage}`);
      const { backup } = await t.admin.createVolumeBackup(service.id, 'data', storage);
      expect(backup.volume).to.equal('data');
      expect(backup.engine).to.equal(null);
      const done = await finished(backup.id);
      expect(done.status, done.error ?? '').to.equal('succeeded');
      expect(done.format).to.equal('tar');
      expect(done.checksum).to.match(/^sha256:[0-9a-f]{64}$/);
      if (storage === 'remote') {
        expect(done.localPath).to.equal(null);
        expect(s3.requests.some((q) => q.method === 'PUT' && q.path.includes(done.remoteKey!))).to.equal(true);
      }
      sh('rm /www/data/note.txt');
      expect((await page()).status).to.equal(404);
      const res = await t.admin.restoreVolumeBackup(service.id, 'data', backup.id);
      expect(res.ok).to.equal(true);
      expect(res.detail.join('\n')).to.match(/is stopped while volume data is restored/);
      expect(res.detail.join('\n')).to.match(/started again and answers/);
      expect(t.logs.join('\n')).to.match(/is stopped while volume data is restored/);
      expect((await page()).text).to.equal(`kept by ${storage}`);
    });
  }

  it('downloads the tarball with its checksum', async () => {
    const { backup } = await t.admin.createVolumeBackup(service.id, 'data', 'disk');
    const done = await finished(backup.id);
    const { bytes, headers } = await t.admin.downloadVolumeBackup(service.id, 'data', backup.id);
    expect(sha256(bytes)).to.equal(done.checksum);
    expect(headers.get('x-berth-checksum')).to.equal(done.checksum);
    expect(headers.get('content-type')).to.equal('application/x-tar');
    // a tar: the ustar magic at offset 257 of the first header
    expect(bytes.subarray(257, 262).toString()).to.equal('ustar');
  });

  it('refuses to restore a file that no longer matches its checksum, changing nothing', async () => {
    const { backup } = await t.admin.createVolumeBackup(service.id, 'data', 'disk');
    const done = await finished(backup.id);
    writeFileSync(done.localPath!, 'tampered');
    sh('echo after > /www/data/after.txt');
    const err = (await t.admin.restoreVolumeBackup(service.id, 'data', backup.id).catch((e: unknown) => e)) as ApiError;
    expect(err.status).to.equal(409);
    expect(err.message).to.match(/checksum/);
    expect(sh('cat /www/data/after.txt').trim()).to.equal('after');
    sh('rm /www/data/after.txt');
  });

  it("streams the tarball: backing up 200 MB moves the daemon's memory far less than that", async () => {
    sh('dd if=/dev/urandom of=/www/data/big bs=1M count=200 2>/dev/null');
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const { backup } = await t.admin.createVolumeBackup(service.id, 'data', 'disk');
      const done = await finished(backup.id);
      expect(done.status).to.equal('succeeded');
      expect(done.sizeBytes).to.be.greaterThan(200 * 1024 * 1024);
    } finally {
      clearInterval(sampler);
      sh('rm /www/data/big');
    }
    // the daemon runs in this process: its resident size grew by well under the volume's size
    expect(peak - before).to.be.lessThan(100 * 1024 * 1024);
  });

  it('takes scheduled volume backups and keeps the newest N', async () => {
    await t.admin.patchVolumeBackupSettings(service.id, 'data', { automaticEnabled: true, dailyEnabled: true, keepDaily: 2 });
    const { settings } = await t.admin.listVolumeBackups(service.id, 'data');
    expect(settings.volume).to.equal('data');
    expect(settings.keepDaily).to.equal(2);
    const tick = async (at: string) => {
      await t.daemon.backupScheduler.tick(new Date(at));
      await t.daemon.volumeBackups.settled();
    };
    for (const day of ['01', '02', '03']) await tick(`2030-01-${day}T03:01:00.000Z`);
    // retention prunes at the next tick, before anything new is due
    await tick('2030-01-03T03:02:00.000Z');
    const daily = (await t.admin.listVolumeBackups(service.id, 'data')).backups.filter((b) => b.trigger === 'daily');
    expect(daily.map((b) => `${b.createdAt} ${b.status}`)).to.deep.equal(['2030-01-03T03:01:00.000Z succeeded', '2030-01-02T03:01:00.000Z succeeded']);
    await t.admin.patchVolumeBackupSettings(service.id, 'data', { automaticEnabled: false });
  });

  it('a read key gets 403 on changes, a key of another project 404, a volume the service does not mount 404', async () => {
    const { backups } = await t.admin.listVolumeBackups(service.id, 'data');
    const any = backups.find((b) => b.status === 'succeeded')!;
    const reader = await t.clientWith('read', [projectId]);
    expect((await reader.listVolumeBackups(service.id, 'data')).backups.length).to.equal(backups.length);
    expect((await reader.downloadVolumeBackup(service.id, 'data', any.id)).bytes.length).to.equal(any.sizeBytes);
    for (const call of [
      () => reader.createVolumeBackup(service.id, 'data'),
      () => reader.restoreVolumeBackup(service.id, 'data', any.id),
      () => reader.patchVolumeBackupSettings(service.id, 'data', { keepDaily: 3 }),
      () => reader.deleteVolumeBackup(service.id, 'data', any.id),
    ]) {
      expect(((await call().catch((e: unknown) => e)) as ApiError).status).to.equal(403);
    }
    const { project: other } = await t.admin.createProject({ name: uniq('other') });
    const stranger = await t.clientWith('write', [other.id]);
    for (const call of [
      () => stranger.listVolumeBackups(service.id, 'data'),
      () => stranger.downloadVolumeBackup(service.id, 'data', any.id),
      () => stranger.restoreVolumeBackup(service.id, 'data', any.id),
    ]) {
      expect(((await call().catch((e: unknown) => e)) as ApiError).status).to.equal(404);
    }
    expect(((await t.admin.listVolumeBackups(service.id, 'nope').catch((e: unknown) => e)) as ApiError).status).to.equal(404);
  });

  it('a volume backup a crash left running ends failed when the daemon starts', async () => {
    const store = await openDataDir(t.dataDir);
    const id = uniq('crashed');
    const at = new Date().toISOString();
    try {
      await store.backups.insert({
        id,
        serviceId: service.id,
        volume: 'data',
        engine: null,
        status: 'running',
        trigger: 'manual',
        storage: 'disk',
        format: 'tar',
        localPath: null,
        remoteKey: null,
        sizeBytes: 0,
        checksum: '',
        error: null,
        createdAt: at,
        startedAt: at,
        finishedAt: null,
        verification: null,
      });
    } finally {
      await store.close();
    }
    await t.restart();
    const after = (await t.admin.listVolumeBackups(service.id, 'data')).backups.find((b) => b.id === id)!;
    expect(after.status).to.equal('failed');
    expect(after.error).to.match(/daemon stopped/);
  });
});
