// Backups through the API, for every engine that runs here: a round trip (write, back up, change,
// restore, exactly as before), the checksum of the downloaded bytes, remote storage on a real S3
// server, failures that must end `failed` with no file, schedules on a driven clock with
// retention, and imports from a second PostgreSQL and a second Redis.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiError } from '../../shared/client.js';
import type { Backup, DatabaseEngine, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { docker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { until, waitForDeployment } from '../helpers/wait.js';

interface RoundTrip {
  engine: DatabaseEngine;
  setup: string[];
  change: string[];
  state: string[];
}

const ROUND_TRIPS: RoundTrip[] = [
  {
    engine: 'postgres',
    setup: ['CREATE TABLE t (id int PRIMARY KEY, v text, b bytea)', "INSERT INTO t VALUES (1, 'héllo wörld ✓', '\\x00ff10'), (2, 'two', NULL)"],
    change: ["UPDATE t SET v = 'changed' WHERE id = 1", 'DELETE FROM t WHERE id = 2', "INSERT INTO t VALUES (9, 'new', NULL)"],
    state: ["SELECT id, v, encode(b, 'hex') AS b FROM t ORDER BY id"],
  },
  {
    engine: 'mysql',
    setup: ['CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100), b BLOB)', "INSERT INTO t VALUES (1, 'héllo wörld ✓', UNHEX('00FF10')), (2, 'two', NULL)"],
    change: ["UPDATE t SET v = 'changed' WHERE id = 1", 'DELETE FROM t WHERE id = 2', "INSERT INTO t VALUES (9, 'new', NULL)"],
    state: ['SELECT id, v, HEX(b) AS b FROM t ORDER BY id'],
  },
  {
    engine: 'redis',
    setup: ['SET k1 "héllo wörld ✓"', 'HSET h f1 v1 f2 v2', 'RPUSH l a b c'],
    change: ['SET k1 changed', 'DEL h', 'SET k9 new'],
    state: ['MGET k1 k9', 'HGETALL h', 'LRANGE l 0 -1'],
  },
  {
    engine: 'clickhouse',
    setup: ['CREATE TABLE t (id UInt32, v String) ENGINE = MergeTree ORDER BY id', "INSERT INTO t VALUES (1, 'héllo wörld ✓'), (2, 'two')"],
    change: ["INSERT INTO t VALUES (9, 'new')", 'ALTER TABLE t DELETE WHERE id = 2'],
    state: ['SELECT id, v FROM t ORDER BY id'],
  },
];

const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe('database backups', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let projectId: string;
  const services = new Map<string, Service>();

  async function deployDatabase(name: string, engine: DatabaseEngine): Promise<Service> {
    const { service } = await t.admin.createService(projectId, { name, repoFullName: `database:${engine}` });
    const { deployment } = await t.admin.deploy(service.id);
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 600_000);
    if (done.status !== 'running') throw new Error((await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n'));
    return service;
  }

  async function state(id: string, statements: string[]): Promise<string> {
    const out = [];
    for (const s of statements) out.push((await t.admin.databaseQuery(id, s)).rows);
    return JSON.stringify(out);
  }

  async function finished(serviceId: string, backupId: string): Promise<Backup> {
    return until('the backup to finish', async () => (await t.admin.listBackups(serviceId)).backups.find((b) => b.id === backupId && b.status !== 'running'), 240_000, 250);
  }

  before(async function () {
    this.timeout(1_200_000);
    const images = requireDatabaseImages();
    t = await startTestDaemon({ ...images, BERTH_BUILD_CONCURRENCY: '6' });
    projectId = (await t.admin.createProject({ name: uniq('backups') })).project.id;
    await Promise.all(ROUND_TRIPS.map(async (r) => services.set(r.engine, await deployDatabase(`${r.engine}-db`, r.engine))));
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });

  for (const r of ROUND_TRIPS) {
    it(`${r.engine}: back up, change, restore: the data is exactly as at backup time; the download matches the checksum`, async () => {
      const id = services.get(r.engine)!.id;
      for (const s of r.setup) await t.admin.databaseQuery(id, s);
      const before = await state(id, r.state);
      const { backup: started } = await t.admin.createBackup(id, 'disk');
      expect(started).to.include({ status: 'running', storage: 'disk', trigger: 'manual', engine: r.engine, finishedAt: null });
      const backup = await finished(id, started.id);
      expect(backup.status, backup.error ?? '').to.equal('succeeded');
      expect(backup.sizeBytes).to.be.greaterThan(0);
      expect(backup.checksum).to.match(/^sha256:[0-9a-f]{64}$/);
      expect(existsSync(backup.localPath!)).to.equal(true);

      const { bytes, headers } = await t.admin.downloadBackup(id, backup.id);
      expect(sha256(bytes)).to.equal(backup.checksum);
      expect(Number(headers.get('content-length'))).to.equal(backup.sizeBytes);
      expect(headers.get('content-disposition')).to.match(/^attachment; filename="[a-z0-9-]+-\d{4}-.+"$/);

      for (const s of r.change) await t.admin.databaseQuery(id, s);
      await until('the change to show', async () => (await state(id, r.state)) !== before, 30_000);
      const restored = await t.admin.restoreBackup(id, backup.id);
      expect(restored).to.deep.include({ ok: true, backup: { id: backup.id, status: 'succeeded' } });
      expect(restored.restoredAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(await state(id, r.state)).to.equal(before);
    });
  }

  describe('remote storage on a real S3-compatible server', function () {
    let s3: TestS3Server;
    let id: string;
    before(async () => {
      s3 = await startS3Server();
      id = services.get('postgres')!.id;
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
      await t.admin.deleteBackupStorage().catch(() => undefined);
      await s3?.stop();
    });

    it('a remote-only backup is uploaded, downloaded and restored from S3, and deleted from it', async () => {
      expect((await t.admin.listBackups(id)).remote).to.deep.equal({ connected: true });
      await t.admin.databaseQuery(id, 'CREATE TABLE remote_t (v text)');
      await t.admin.databaseQuery(id, "INSERT INTO remote_t VALUES ('from s3')");
      const backup = await finished(id, (await t.admin.createBackup(id, 'remote')).backup.id);
      expect(backup.status, backup.error ?? '').to.equal('succeeded');
      expect(backup.localPath).to.equal(null);
      expect(backup.remoteKey).to.be.a('string');
      expect(s3.requests.some((q) => q.method === 'PUT' && q.path.includes(backup.remoteKey!))).to.equal(true);
      const { bytes } = await t.admin.downloadBackup(id, backup.id);
      expect(sha256(bytes)).to.equal(backup.checksum);

      await t.admin.databaseQuery(id, "UPDATE remote_t SET v = 'changed'");
      await t.admin.restoreBackup(id, backup.id);
      expect((await t.admin.databaseQuery(id, 'SELECT v FROM remote_t')).rows).to.deep.equal([{ v: 'from s3' }]);

      await t.admin.deleteBackup(id, backup.id);
      expect(s3.requests.some((q) => q.method === 'DELETE' && q.path.includes(backup.remoteKey!))).to.equal(true);
      expect((await t.admin.listBackups(id)).backups.map((b) => b.id)).not.to.include(backup.id);
    });

    it('disk+remote keeps both copies; delete removes the file from both', async () => {
      const backup = await finished(id, (await t.admin.createBackup(id, 'disk+remote')).backup.id);
      expect(backup.status, backup.error ?? '').to.equal('succeeded');
      expect(existsSync(backup.localPath!)).to.equal(true);
      expect(backup.remoteKey).to.be.a('string');
      await t.admin.deleteBackup(id, backup.id);
      expect(existsSync(backup.localPath!)).to.equal(false);
      expect(s3.requests.some((q) => q.method === 'DELETE' && q.path.includes(backup.remoteKey!))).to.equal(true);
    });

    it('a wrong secret shows as not connected, and a remote backup then fails with the refusal and leaves no file', async () => {
      await t.admin.putBackupStorage({
        endpoint: s3.endpoint,
        region: s3.region,
        bucket: s3.bucket,
        prefix: 'berth/',
        accessKeyId: s3.accessKeyId,
        secretAccessKey: 'wrong-secret-0123456789',
        forcePathStyle: true,
      });
      expect((await t.admin.listBackups(id)).remote).to.deep.equal({ connected: false });
      const backup = await finished(id, (await t.admin.createBackup(id, 'remote')).backup.id);
      expect(backup.status).to.equal('failed');
      expect(backup.error).to.match(/SignatureDoesNotMatch|signature/i);
      expect(readdirSync(join(t.dataDir, 'backups', id)).filter((f) => f.startsWith(backup.id))).to.deep.equal([]);
    });
  });

  describe('failures never look like success', function () {
    let id: string;
    before(async () => {
      id = services.get('postgres')!.id;
    });

    it('an unwritable backup directory ends failed with the error and leaves no file', async () => {
      const dir = join(t.dataDir, 'backups', id);
      mkdirSync(dir, { recursive: true });
      renameSync(dir, `${dir}.moved`);
      writeFileSync(dir, 'not a directory');
      try {
        const backup = await finished(id, (await t.admin.createBackup(id, 'disk')).backup.id);
        expect(backup.status).to.equal('failed');
        expect(backup.error).to.match(/EEXIST|ENOTDIR|not a directory/i);
        expect(backup).to.include({ localPath: null, sizeBytes: 0 });
        const err = await t.admin.restoreBackup(id, backup.id).catch((e: unknown) => e);
        expect((err as ApiError).status).to.equal(409);
      } finally {
        rmSync(dir, { force: true });
        renameSync(`${dir}.moved`, dir);
      }
    });

    it('the database container stopped mid-dump ends failed and leaves no file', async () => {
      // enough data that pg_dump runs for a while
      await t.admin.databaseQuery(id, 'CREATE TABLE big AS SELECT g, md5(g::text) || repeat(md5(random()::text), 8) AS pad FROM generate_series(1, 1500000) g');
      const live = (await t.admin.listDeployments(id)).deployments.find((d) => d.status === 'running')!;
      const { backup: started } = await t.admin.createBackup(id, 'disk');
      const dir = join(t.dataDir, 'backups', id);
      await until('the dump to be written', async () => existsSync(dir) && readdirSync(dir).some((f) => f.startsWith(started.id) && f.endsWith('.partial')), 60_000, 20);
      docker('stop', '-t', '0', live.containerName!);
      try {
        const backup = await finished(id, started.id);
        expect(backup.status).to.equal('failed');
        expect(backup.error).to.be.a('string').and.not.equal('');
        expect(readdirSync(dir).filter((f) => f.startsWith(started.id))).to.deep.equal([]);
      } finally {
        docker('start', live.containerName!);
        await t.daemon.engine.containerRestarted(id);
        await until('postgres to answer again', async () => (await t.admin.databaseQuery(id, 'SELECT 1 AS one').catch(() => null))?.rowCount === 1, 60_000, 500);
        await t.admin.databaseQuery(id, 'DROP TABLE big');
      }
    });

    it('a second job on the same database answers 409 while one runs', async () => {
      const { backup } = await t.admin.createBackup(id, 'disk');
      const err = await t.admin.createBackup(id, 'disk').catch((e: unknown) => e);
      expect((err as ApiError).status).to.equal(409);
      await finished(id, backup.id);
    });
  });

  describe('schedules, on a clock the test drives', function () {
    it('takes the due backups and keeps the newest N of each schedule', async () => {
      const { service } = { service: await deployDatabase(uniq('sched'), 'redis') };
      await t.admin.databaseQuery(service.id, 'SET scheduled yes');
      await t.admin.patchBackupSettings(service.id, { automaticEnabled: true, dailyEnabled: true, weeklyEnabled: true, keepDaily: 2, keepWeekly: 1 });
      const scheduler = t.daemon.backupScheduler;
      // saving an automatic schedule arms the minute task (node-cron loads only then)
      await until('the minute task to be armed', async () => scheduler.armed, 5_000, 50);
      const tick = async (at: string) => {
        await scheduler.tick(new Date(at));
        await t.daemon.backups.settled();
      };
      // 2030-01-01 is a Tuesday: its daily slot is that day 03:00, its weekly slot Sunday 2029-12-30 03:00
      await tick('2029-12-31T23:00:00.000Z'); // before any slot of these days: the Monday daily slot is due
      await tick('2030-01-01T02:59:00.000Z'); // the weekly one (one job per service per tick)
      await tick('2030-01-01T02:59:30.000Z'); // nothing due
      let all = (await t.admin.listBackups(service.id)).backups;
      expect(all.map((b) => `${b.trigger} ${b.status}`).sort()).to.deep.equal(['daily succeeded', 'weekly succeeded']);
      for (const day of ['01', '02', '03']) {
        await tick(`2030-01-${day}T03:01:00.000Z`);
        await tick(`2030-01-${day}T03:02:00.000Z`);
      }
      all = (await t.admin.listBackups(service.id)).backups;
      const daily = all.filter((b) => b.trigger === 'daily');
      expect(daily.map((b) => b.createdAt)).to.deep.equal(['2030-01-03T03:01:00.000Z', '2030-01-02T03:01:00.000Z']);
      expect(daily.every((b) => b.status === 'succeeded' && existsSync(b.localPath!))).to.equal(true);
      expect(all.filter((b) => b.trigger === 'weekly')).to.have.length(1);
      // the pruned files are gone from disk
      const files = readdirSync(join(t.dataDir, 'backups', service.id));
      expect(files.sort()).to.deep.equal(all.map((b) => b.localPath!.split('/').pop()!).sort());
    });
  });

  describe('imports from another server', function () {
    const containers: string[] = [];
    after(() => {
      for (const c of containers) docker('rm', '-f', '-v', c);
    });

    it('imports a second PostgreSQL by URL, with the credentials masked', async () => {
      const images = requireDatabaseImages();
      const target = services.get('postgres')!;
      const name = uniq('berth-test-src-pg');
      const password = `pw-${randomBytes(8).toString('hex')}`;
      containers.push(name);
      docker('run', '-d', '--name', name, '--network', `berth-${projectId}`, '-e', `POSTGRES_PASSWORD=${password}`, '-e', 'POSTGRES_USER=src', '-e', 'POSTGRES_DB=srcdb', images.BERTH_IMAGE_POSTGRES!);
      // over TCP: the image's first start runs a socket-only server for its init scripts and then
      // restarts, so a socket that answers may be gone a moment later
      const psql = ['exec', '-e', `PGPASSWORD=${password}`, name, 'psql', '-h', '127.0.0.1', '-U', 'src', '-d', 'srcdb', '-v', 'ON_ERROR_STOP=1', '-c'];
      await until('the source to answer', async () => spawnSync('docker', [...psql, 'SELECT 1'], { stdio: 'ignore' }).status === 0, 120_000, 500);
      docker(...psql, "CREATE TABLE imported (id int PRIMARY KEY, v text); INSERT INTO imported VALUES (1, 'one'), (2, 'twö')");
      const url = `postgresql://src:${password}@${name}:5432/srcdb`;
      const { result } = await t.admin.importFrom(target.id, 'postgres-url', url);
      expect(result).to.include({ status: 'running', source: 'postgres-url' });
      const done = await until('the import to finish', async () => (await t.admin.listImports(target.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 120_000, 250);
      expect(done.status, done.error ?? '').to.equal('succeeded');
      expect(done.sourceLabel).to.equal(`postgresql://***@${name}:5432/srcdb`);
      expect(JSON.stringify(await t.admin.listImports(target.id))).not.to.include(password);
      expect((await t.admin.databaseQuery(target.id, 'SELECT id, v FROM imported ORDER BY id')).rows).to.deep.equal([
        { id: 1, v: 'one' },
        { id: 2, v: 'twö' },
      ]);
    });

    it('imports every key of every logical database of a second Redis, with its TTL', async () => {
      const images = requireDatabaseImages();
      const target = services.get('redis')!;
      const name = uniq('berth-test-src-redis');
      const password = `pw-${randomBytes(8).toString('hex')}`;
      containers.push(name);
      docker('run', '-d', '--name', name, '-p', '127.0.0.1::6379', images.BERTH_IMAGE_REDIS!, 'redis-server', '--requirepass', password);
      const port = Number(docker('port', name, '6379/tcp').split(':').pop());
      const cli = (...args: string[]) => docker('exec', '-e', `REDISCLI_AUTH=${password}`, name, 'redis-cli', ...args);
      await until(
        'the source to answer',
        async () => {
          try {
            return cli('PING') === 'PONG';
          } catch {
            return false;
          }
        },
        60_000,
        250,
      );
      cli('SET', 'plain', 'värde');
      cli('HSET', 'hash', 'a', '1', 'b', '2');
      cli('SET', 'expiring', 'soon', 'EX', '3600');
      cli('-n', '3', 'SET', 'in-db-3', 'three');
      const { result } = await t.admin.importFrom(target.id, 'redis-url', `redis://default:${password}@127.0.0.1:${port}`);
      const done = await until('the import to finish', async () => (await t.admin.listImports(target.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 120_000, 250);
      expect(done.status, done.error ?? '').to.equal('succeeded');
      expect(done.sourceLabel).to.equal(`redis://***@127.0.0.1:${port}`);
      expect(JSON.stringify(done)).not.to.include(password);
      expect((await t.admin.databaseQuery(target.id, 'GET plain')).rows).to.deep.equal([{ value: 'värde' }]);
      expect((await t.admin.databaseQuery(target.id, 'HGET hash b')).rows).to.deep.equal([{ value: '2' }]);
      const ttl = firstNumber((await t.admin.databaseQuery(target.id, 'TTL expiring')).rows);
      expect(ttl).to.be.within(3500, 3600);
      expect((await t.admin.databaseQuery(target.id, 'GET in-db-3', { database: 3 })).rows).to.deep.equal([{ value: 'three' }]);
    });

    it('refuses a URL of the wrong kind or engine with 400 and starts nothing', async () => {
      const pg = services.get('postgres')!.id;
      const before = (await t.admin.listImports(pg)).imports.length;
      for (const [source, url] of [
        ['postgres-url', 'redis://x@127.0.0.1:1'],
        ['postgres-url', 'not a url'],
        ['redis-url', 'redis://127.0.0.1:6379'],
      ] as const) {
        const err = await t.admin.importFrom(pg, source, url).catch((e: unknown) => e);
        expect((err as ApiError).status, `${source} ${url}`).to.equal(400);
      }
      expect((await t.admin.listImports(pg)).imports).to.have.length(before);
    });
  });
});

function firstNumber(rows: Record<string, unknown>[]): number {
  return Number(Object.values(rows[0] ?? {})[0]);
}
