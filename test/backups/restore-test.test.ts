// Restore tests of database backups against real engines (postgres, redis, mysql): a good backup is restored into a
// throwaway container and ends `verified` with the restored database's tables and rows, while the
// live database answers with its rows unchanged, and no restore-test container (or its volume) is
// left; a backup file overwritten with garbage ends `failed` with the reason and one notice on a
// channel (a local HTTP receiver); a verification a crash left `running` is failed at the next
// start, and a restore-test container a crash left is removed.
import { expect } from 'chai';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiError } from '../../shared/client.js';
import type { Backup, DatabaseEngine, Service } from '../../shared/types.js';
import { openDataDir } from '../../daemon/runtime.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { containersWithLabel, docker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { startS3Server, storageFor } from '../helpers/s3-server.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const ROLE = 'dev.berth.role=restore-test';

describe('restore tests of database backups', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let projectId: string;
  let http: Server;
  const notices: { event: string; text: string; [field: string]: unknown }[] = [];

  async function deployDatabase(name: string, engine: DatabaseEngine): Promise<Service> {
    const { service } = await t.admin.createService(projectId, { name, repoFullName: `database:${engine}` });
    const { deployment } = await t.admin.deploy(service.id);
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 600_000);
    if (done.status !== 'running') throw new Error((await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n'));
    return service;
  }

  async function backupOf(serviceId: string): Promise<Backup> {
    const { backup } = await t.admin.createBackup(serviceId, 'disk');
    const done = await until('the backup to finish', async () => (await t.admin.listBackups(serviceId)).backups.find((b) => b.id === backup.id && b.status !== 'running'), 120_000, 250);
    expect(done.status, done.error ?? '').to.equal('succeeded');
    return done;
  }

  async function verified(serviceId: string, backupId: string): Promise<Backup> {
    return until(
      'the restore test to end',
      async () => (await t.admin.listBackups(serviceId)).backups.find((b) => b.id === backupId && b.verification && b.verification.status !== 'running'),
      180_000,
      250,
    );
  }

  const leftovers = () => containersWithLabel(ROLE).filter((id) => docker('inspect', '-f', '{{index .Config.Labels "dev.berth.instance"}}', id) === instanceId);
  let instanceId = '';
  let pg: Service;
  let cache: Service;

  before(async function () {
    this.timeout(900_000);
    http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        notices.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as (typeof notices)[number]);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    t = await startTestDaemon({ ...requireDatabaseImages() });
    await allowLoopbackNotifyTargets(t.admin);
    const port = (http.address() as AddressInfo).port;
    const res = await t.admin.request('POST', '/api/system/notifications', {
      type: 'webhook',
      name: 'restore tests',
      url: `http://127.0.0.1:${port}/hook`,
      events: ['backup_verification_failed'],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    projectId = (await t.admin.createProject({ name: uniq('restore-tests') })).project.id;
    const store = await openDataDir(t.dataDir);
    try {
      instanceId = (await store.settings.get('instanceId')) ?? '';
    } finally {
      await store.close();
    }
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await new Promise((r) => http?.close(r));
  });

  it('postgres: a good backup is verified with its tables and rows; the live rows stay as they were; no container is left', async () => {
    const db = await deployDatabase('pg', 'postgres');
    pg = db;
    await t.admin.databaseQuery(db.id, 'CREATE TABLE a (id int PRIMARY KEY, v text)');
    await t.admin.databaseQuery(db.id, "INSERT INTO a SELECT g, 'v' || g FROM generate_series(1, 3) g");
    await t.admin.databaseQuery(db.id, 'CREATE TABLE b (id int PRIMARY KEY)');
    await t.admin.databaseQuery(db.id, 'INSERT INTO b SELECT g FROM generate_series(1, 5) g');
    const backup = await backupOf(db.id);
    expect(backup.verification).to.equal(null);

    const res = await t.admin.request('POST', `/api/services/${db.id}/database/backups/${backup.id}/verify`);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const started = (res.body as { backup: Backup }).backup;
    expect(started.id).to.equal(backup.id);
    expect(started.verification).to.include({ status: 'running', finishedAt: null, tables: null, rows: null, error: null });
    // one restore test per service at a time
    const again = await t.admin.verifyBackup(db.id, backup.id).catch((e: ApiError) => e);
    expect((again as ApiError).status).to.equal(409);

    // the live database is read while the test runs: its rows are as they were
    await until('the throwaway container to run', async () => leftovers().length === 1 && docker('inspect', '-f', '{{.State.Running}}', leftovers()[0]!) === 'true', 60_000, 100);
    const throwaway = JSON.parse(docker('inspect', leftovers()[0]!))[0] as {
      HostConfig: { NetworkMode: string; Memory: number };
      Mounts: { Type: string; Name: string }[];
      NetworkSettings: { Ports: Record<string, { HostIp: string }[]> };
    };
    // the project's own network, which Berth's firewall guards like the live database's (a crafted dump can run programs): never Docker's default bridge
    const liveNetwork = docker('inspect', '-f', '{{.HostConfig.NetworkMode}}', containersWithLabel(`dev.berth.service=${db.id}`).find((id) => !leftovers().includes(id))!);
    expect(throwaway.HostConfig.NetworkMode).to.equal(liveNetwork);
    expect(throwaway.HostConfig.NetworkMode).to.not.equal('bridge');
    expect(throwaway.HostConfig.Memory).to.be.greaterThan(0);
    expect(
      Object.values(throwaway.NetworkSettings.Ports)
        .flat()
        .map((p) => p.HostIp),
    ).to.deep.equal(['127.0.0.1']);
    const volume = throwaway.Mounts.find((m) => m.Type === 'volume')!.Name;
    const live = await t.admin.databaseQuery(db.id, 'SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM b) AS n');
    expect(Number((live.rows[0] as Record<string, unknown>).n)).to.equal(8);

    const done = await verified(db.id, backup.id);
    expect(done.verification, JSON.stringify(done.verification)).to.include({ status: 'verified', tables: 2, rows: 8, error: null });
    expect(done.verification!.finishedAt! >= done.verification!.startedAt).to.equal(true);
    expect(leftovers()).to.deep.equal([]);
    expect(docker('volume', 'ls', '-q', '--filter', `name=${volume}`)).to.equal('');
    const after = await t.admin.databaseQuery(db.id, 'SELECT count(*) AS n FROM a');
    expect(Number((after.rows[0] as Record<string, unknown>).n)).to.equal(3);
  });

  it('redis: a good backup is verified with its keys; no container is left', async () => {
    const db = await deployDatabase('cache', 'redis');
    cache = db;
    for (const s of ['SET k1 one', 'HSET h f1 v1 f2 v2', 'RPUSH l a b c']) await t.admin.databaseQuery(db.id, s);
    const backup = await backupOf(db.id);
    await t.admin.verifyBackup(db.id, backup.id);
    const done = await verified(db.id, backup.id);
    expect(done.verification, JSON.stringify(done.verification)).to.include({ status: 'verified', tables: 3, error: null });
    expect(done.verification!.rows).to.be.greaterThan(0);
    expect(leftovers()).to.deep.equal([]);
  });

  it('mysql: a good backup is verified with its tables and rows; no container is left', async () => {
    const db = await deployDatabase('shop', 'mysql');
    await t.admin.databaseQuery(db.id, 'CREATE TABLE items (id INT PRIMARY KEY, v VARCHAR(20))');
    await t.admin.databaseQuery(db.id, "INSERT INTO items VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
    const backup = await backupOf(db.id);
    await t.admin.verifyBackup(db.id, backup.id);
    const done = await verified(db.id, backup.id);
    expect(done.verification, JSON.stringify(done.verification)).to.include({ status: 'verified', tables: 1, rows: 4, error: null });
    expect(leftovers()).to.deep.equal([]);
  });

  it('a remote-only backup is fetched from S3 for its restore test and verified; the temporary copy is removed', async () => {
    const s3 = await startS3Server();
    try {
      await t.admin.putBackupStorage(storageFor(s3));
      const { backup: started } = await t.admin.createBackup(pg.id, 'remote');
      const backup = await until('the backup', async () => (await t.admin.listBackups(pg.id)).backups.find((b) => b.id === started.id && b.status !== 'running'), 120_000, 250);
      expect(backup.status, backup.error ?? '').to.equal('succeeded');
      expect(backup.localPath).to.equal(null);
      await t.admin.verifyBackup(pg.id, backup.id);
      const done = await verified(pg.id, backup.id);
      expect(done.verification, JSON.stringify(done.verification)).to.include({ status: 'verified', tables: 2, rows: 8 });
      expect(s3.requests.some((q) => q.method === 'GET' && q.path.includes(backup.remoteKey!))).to.equal(true);
      expect(readdirSync(join(t.dataDir, 'backups', pg.id)).filter((f) => f.endsWith('.restore'))).to.deep.equal([]);
      expect(leftovers()).to.deep.equal([]);
    } finally {
      await t.admin.deleteBackupStorage().catch(() => undefined);
      await s3.stop();
    }
  });

  it('a backup file overwritten with garbage fails the restore test with the reason and one notice; no container is left', async () => {
    const db = pg;
    const backup = await backupOf(db.id);
    writeFileSync(backup.localPath!, Buffer.alloc(backup.sizeBytes, 0x5a));
    const before = notices.length;
    await t.admin.verifyBackup(db.id, backup.id);
    const done = await verified(db.id, backup.id);
    expect(done.verification).to.include({ status: 'failed', tables: null, rows: null });
    expect(done.verification!.error).to.match(/does not match its checksum/);
    const notice = await until('the notice', async () => notices.slice(before).find((n) => n.event === 'backup_verification_failed'), 30_000, 100);
    expect(notice.text).to.include('restore test').and.include(backup.id).and.include('checksum');
    expect(notice).to.include({ backupId: backup.id, serviceId: db.id, status: 'failed' });
    await new Promise((r) => setTimeout(r, 500));
    expect(notices.slice(before).filter((n) => n.event === 'backup_verification_failed')).to.have.length(1);
    expect(leftovers()).to.deep.equal([]);
    // a backup that did not succeed cannot be tested
    const { backup: running } = await t.admin.createBackup(db.id, 'disk');
    const refused = await t.admin.verifyBackup(db.id, running.id).catch((e: ApiError) => e);
    expect((refused as ApiError).status).to.equal(409);
    await until('that backup to finish', async () => (await t.admin.listBackups(db.id)).backups.find((b) => b.id === running.id && b.status !== 'running'), 120_000, 250);
  });

  it('the schedule, on a clock the test drives: restore-tests the newest backup when its cron matches; GFS keeps the newest of the N newest days and the newest verified', async () => {
    const db = cache;
    const bad = await t.admin.patchBackupSettings(db.id, { verifySchedule: 'every day' }).catch((e: ApiError) => e);
    expect((bad as ApiError).status).to.equal(400);
    const negative = await t.admin.patchBackupSettings(db.id, { gfs: { hourly: null, daily: -1, weekly: null, monthly: null } }).catch((e: ApiError) => e);
    expect((negative as ApiError).status).to.equal(400);
    const { settings } = await t.admin.patchBackupSettings(db.id, {
      automaticEnabled: true,
      dailyEnabled: true,
      verifySchedule: '30 4 * * *',
      gfs: { hourly: null, daily: 2, weekly: null, monthly: null },
    });
    expect(settings).to.deep.include({ verifySchedule: '30 4 * * *', gfs: { hourly: null, daily: 2, weekly: null, monthly: null }, keepDaily: 7 });
    const scheduler = t.daemon.backupScheduler;
    const tick = async (at: string) => {
      await scheduler.tick(new Date(at));
      await t.daemon.backups.settled();
      await t.daemon.verifier.settled();
    };
    const list = async () => (await t.admin.listBackups(db.id)).backups;
    // 2030-01-01: the daily backup at 03:01, its restore test at 04:30 (once in that minute)
    await tick('2030-01-01T03:01:00.000Z');
    await tick('2030-01-01T04:29:00.000Z');
    const first = (await list()).find((b) => b.createdAt === '2030-01-01T03:01:00.000Z')!;
    expect(first.verification).to.equal(null);
    await tick('2030-01-01T04:30:00.000Z');
    await tick('2030-01-01T04:30:30.000Z');
    const tested = (await list()).find((b) => b.id === first.id)!;
    expect(tested.verification, JSON.stringify(tested.verification)).to.include({ status: 'verified' });
    const testedAt = tested.verification!.startedAt;
    for (const day of ['02', '03', '04']) await tick(`2030-01-${day}T03:01:00.000Z`);
    await tick('2030-01-04T03:02:00.000Z');
    const left = await list();
    // the newest of the 2 newest days, and the newest verified (the manual one of the redis test is older: pruned)
    expect(left.map((b) => b.createdAt)).to.deep.equal(['2030-01-04T03:01:00.000Z', '2030-01-03T03:01:00.000Z', '2030-01-01T03:01:00.000Z']);
    expect(left.find((b) => b.id === first.id)!.verification!.startedAt).to.equal(testedAt);
    const files = readdirSync(join(t.dataDir, 'backups', db.id));
    expect(files.sort()).to.deep.equal(left.map((b) => b.localPath!.split('/').pop()!).sort());
    await t.admin.patchBackupSettings(db.id, { automaticEnabled: false, verifySchedule: null, gfs: null });
  });

  it('after a crash: a verification left running is failed, and a leftover restore-test container is removed', async () => {
    const db = pg;
    const backup = await backupOf(db.id);
    const store = await openDataDir(t.dataDir);
    try {
      const at = new Date().toISOString();
      expect(await store.backups.setVerification(backup.id, { status: 'running', startedAt: at, finishedAt: null, tables: null, rows: null, error: null }, [null])).to.equal(true);
    } finally {
      await store.close();
    }
    const labels = ['dev.berth.managed=true', `dev.berth.instance=${instanceId}`, `dev.berth.project=${projectId}`, `dev.berth.service=${db.id}`, ROLE];
    const leftover = docker('create', ...labels.flatMap((l) => ['--label', l]), requireDatabaseImages().BERTH_IMAGE_REDIS!);
    expect(leftovers()).to.include(leftover.slice(0, 12));
    await t.restart();
    const after = (await t.admin.listBackups(db.id)).backups.find((b) => b.id === backup.id)!;
    expect(after.verification).to.include({ status: 'failed' });
    expect(after.verification!.error).to.match(/daemon stopped/);
    expect(leftovers()).to.deep.equal([]);
  });
});
