// Berth's own backup from the API (GET/PATCH/POST /api/system/backups, download, delete) against a
// real test daemon whose /etc/berth and Caddy home are temporary folders (BERTH_ETC_DIR,
// BERTH_CADDY_HOME): a run writes the same archive `berth server backup` does, it opens with the
// passphrase into the same projects, bad input changes nothing, the schedule's path records
// `schedule`, retention keeps exactly `keep` and never touches a file it did not write, S3 uploads
// come back byte-equal, and a run a stopped daemon left `running` ends `failed` with its files gone.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerBackupRun, ServerBackups } from '../../shared/types.js';
import { s3Store } from '../../daemon/backups/s3-store.js';
import { restoreServerArchive } from '../../daemon/server-tools/server-archive.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { listenToEvents } from '../helpers/event-listener.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { snapshotStore, withKnex } from '../helpers/snapshot.js';
import { until } from '../helpers/wait.js';

type ErrorBody = { error: { code: string; message: string } };

const NO_CADDY = { BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' };
const PASSPHRASE = 'a long enough passphrase';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe("Berth's own backup from the API", function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let root: string;
  const folder = () => join(t.dataDir, 'server-backups');
  const saved = { etc: process.env.BERTH_ETC_DIR, caddy: process.env.BERTH_CADDY_HOME };

  const get = async (): Promise<ServerBackups> => {
    const res = await t.admin.request<ServerBackups>('GET', '/api/system/backups');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const patch = (body: unknown) => t.admin.request<ServerBackups & ErrorBody>('PATCH', '/api/system/backups', body);
  const post = (body: unknown = {}) => t.admin.request<{ run: ServerBackupRun } & ErrorBody>('POST', '/api/system/backups', body);
  const ended = (id: string) =>
    until(
      `run ${id} ends`,
      async () => {
        const run = (await get()).runs.find((r) => r.id === id);
        return run && run.status !== 'running' ? run : null;
      },
      60_000,
    );
  const runNow = async (body: unknown = {}): Promise<ServerBackupRun> => {
    const res = await post(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return ended(res.body.run.id);
  };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'berth-server-backups-'));
    // what createServerArchive reads besides the data dir (the daemon reads /etc/berth and Caddy's home on a server)
    process.env.BERTH_ETC_DIR = join(root, 'etc');
    process.env.BERTH_CADDY_HOME = join(root, 'caddy');
    mkdirSync(join(root, 'etc'));
    writeFileSync(join(root, 'etc/berth.env'), 'BERTH_PORT=4311\n');
    mkdirSync(join(root, 'caddy/.config/caddy'), { recursive: true });
    writeFileSync(join(root, 'caddy/.config/caddy/autosave.json'), '{"apps":{}}\n');
    t = await startTestDaemon(NO_CADDY);
    await t.admin.createProject({ name: 'kept-in-the-archive', description: '' });
  });

  after(async () => {
    await t?.daemon.core.serverBackups.settled();
    await t?.stop();
    process.env.BERTH_ETC_DIR = saved.etc;
    process.env.BERTH_CADDY_HOME = saved.caddy;
    if (saved.etc === undefined) delete process.env.BERTH_ETC_DIR;
    if (saved.caddy === undefined) delete process.env.BERTH_CADDY_HOME;
    rmSync(root, { recursive: true, force: true });
  });

  it('answers the defaults: no schedule, this disk, keep 7, no passphrase, no runs', async () => {
    expect(await get()).to.deep.equal({ serverBackups: { schedule: null, storageId: null, keep: 7, passphraseSet: false, nextRunAt: null }, runs: [] });
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const before = await snapshotStore(t.dataDir);
    const cases: [unknown, string][] = [
      [{ schedule: 'every day' }, 'cron'],
      [{ schedule: '0 3 * * * *' }, '6 fields'],
      [{ schedule: '0 3 * * *' }, 'needs a stored passphrase'],
      [{ storageId: 'nowhere' }, 'is not a storage'],
      [{ storageId: 'remote' }, 'S3 storage configured first'],
      [{ passphrase: 'too short' }, 'at least 12 characters'],
      [{ keep: 0 }, 'from 1 to 100'],
      [{ keep: 101 }, 'from 1 to 100'],
      [{ keep: 2, passPhrase: PASSPHRASE }, 'passPhrase'],
      // one bad field refuses the whole change
      [{ keep: 3, passphrase: PASSPHRASE, schedule: 'nonsense' }, 'cron'],
    ];
    for (const [body, says] of cases) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.message, JSON.stringify(body)).to.include(says);
    }
    const noPassphrase = await post();
    expect(noPassphrase.status).to.equal(400);
    expect(noPassphrase.body.error.code).to.equal('passphrase_required');
    const short = await post({ passphrase: 'short' });
    expect(short.status).to.equal(400);
    expect(short.body.error.message).to.include('at least 12 characters');
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    expect(existsSync(folder())).to.equal(false);
  });

  it('a run now writes the encrypted archive and its .sha256; it opens with the passphrase into the same projects', async () => {
    const listener = listenToEvents(t.admin);
    try {
      const res = await post({ passphrase: PASSPHRASE });
      expect(res.status).to.equal(202);
      expect(res.body.run).to.include({ status: 'running', trigger: 'manual', location: 'disk', storageId: null, fileName: null, error: null });
      const run = await ended(res.body.run.id);
      expect(run.status, run.error ?? '').to.equal('succeeded');
      expect(run.fileName).to.match(/^berth-server-[A-Za-z0-9.-]+-\d{8}T\d{6}Z-[0-9a-f]{8}\.tar\.gz\.enc$/);
      expect(run.counts).to.deep.equal({ projects: 1, services: 0, keys: 1, domains: 0 });
      const file = join(folder(), run.fileName!);
      const bytes = readFileSync(file);
      expect(run.sizeBytes).to.equal(bytes.length);
      expect(run.sha256).to.equal(sha256(bytes));
      expect(readFileSync(`${file}.sha256`, 'utf8')).to.equal(`${run.sha256}  ${run.fileName}\n`);
      // the passphrase given with the run is not stored
      expect((await get()).serverBackups.passphraseSet).to.equal(false);
      const into = { dataDir: join(root, 'restored/data'), etcDir: join(root, 'restored/etc'), caddyHome: join(root, 'restored/caddy') };
      await restoreServerArchive(file, 'not the passphrase!', into).then(
        () => expect.fail('a wrong passphrase opened the archive'),
        (err: Error) => expect(err.message).to.include('does not open with this passphrase'),
      );
      const manifest = await restoreServerArchive(file, PASSPHRASE, into);
      expect(manifest.counts.projects).to.equal(1);
      const names = await withKnex(into.dataDir, async (knex) => (await knex('projects').select('name')).map((r: { name: string }) => r.name));
      expect(names).to.deep.equal(['kept-in-the-archive']);
      expect(readFileSync(join(into.etcDir, 'berth.env'), 'utf8')).to.equal('BERTH_PORT=4311\n');
      await until('the end is heard', async () => listener.heard().some((e) => e.event === 'server-backup' && e.json.status === 'succeeded'), 5_000);
      const heard = listener
        .heard()
        .filter((e) => e.event === 'server-backup')
        .map((e) => [e.json.runId, e.json.status, e.json.trigger]);
      expect(heard).to.deep.equal([
        [run.id, 'running', 'manual'],
        [run.id, 'succeeded', 'manual'],
      ]);
      expect(listener.heard().some((e) => e.event === 'settings' && e.json.area === 'server-backups')).to.equal(true);
    } finally {
      listener.stop();
    }
  });

  it('answers 409 while a run is under way', async () => {
    const [a, b] = await Promise.all([post({ passphrase: PASSPHRASE }), post({ passphrase: PASSPHRASE })]);
    expect([a.status, b.status].sort()).to.deep.equal([202, 409]);
    const refused = a.status === 409 ? a : b;
    expect(refused.body.error.code).to.equal('backup_running');
    await t.daemon.core.serverBackups.settled();
  });

  it('stores the passphrase sealed (answered only as passphraseSet) with a schedule; the schedule fires a run recorded as `schedule`', async () => {
    const res = await patch({ schedule: '0 3 * * *', passphrase: PASSPHRASE });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.serverBackups).to.include({ schedule: '0 3 * * *', passphraseSet: true, keep: 7, storageId: null });
    const next = new Date(res.body.serverBackups.nextRunAt!);
    expect(next.getUTCHours()).to.equal(3);
    expect(next.getUTCMinutes()).to.equal(0);
    expect(JSON.stringify(res.body)).not.to.include(PASSPHRASE);
    const stored = await withKnex(t.dataDir, async (knex) => (await knex('settings').select('value')).map((r: { value: string }) => r.value).join('\n'));
    expect(stored).not.to.include(PASSPHRASE);
    // the scheduled path, now (the test hook: node-cron's task calls the same)
    await t.daemon.serverBackupSchedule.fire();
    const run = (await get()).runs[0]!;
    expect(run).to.include({ trigger: 'schedule' });
    const done = await ended(run.id);
    expect(done.status, done.error ?? '').to.equal('succeeded');
    // a run with no body takes the stored passphrase
    expect((await runNow()).status).to.equal('succeeded');
  });

  it('keeps exactly `keep` succeeded runs; files another tool put in the folder stay', async () => {
    // an archive of the on-server command (Berth's pattern, no run of the daemon) and an unrelated file
    const foreign = ['berth-server-elsewhere-20200101T000000Z.tar.gz.enc', 'berth-server-elsewhere-20200101T000000Z.tar.gz.enc.sha256', 'notes.txt'];
    for (const name of foreign) writeFileSync(join(folder(), name), 'not the daemon’s\n');
    expect((await patch({ keep: 2 })).status).to.equal(200);
    await runNow();
    const last = await runNow();
    await t.daemon.core.serverBackups.settled();
    const succeeded = (await get()).runs.filter((r) => r.status === 'succeeded');
    expect(succeeded).to.have.length(2);
    expect(succeeded[0]!.id).to.equal(last.id);
    const kept = succeeded.flatMap((r) => [r.fileName!, `${r.fileName!}.sha256`]);
    expect(readdirSync(folder()).sort()).to.deep.equal([...kept, ...foreign].sort());
  });

  it('downloads a succeeded run byte-equal; unknown runs are 404', async () => {
    const run = (await get()).runs.find((r) => r.status === 'succeeded')!;
    const res = await t.admin.openServerBackupDownload(run.id);
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="${run.fileName}"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.equals(readFileSync(join(folder(), run.fileName!)))).to.equal(true);
    expect(sha256(bytes)).to.equal(run.sha256);
    expect((await t.admin.request('GET', '/api/system/backups/no-such-run/download')).status).to.equal(404);
  });

  it('DELETE removes the archive and its .sha256, and the run', async () => {
    const run = (await get()).runs.find((r) => r.status === 'succeeded')!;
    const res = await t.admin.request('DELETE', `/api/system/backups/${run.id}`);
    expect(res.status).to.equal(200);
    expect(existsSync(join(folder(), run.fileName!))).to.equal(false);
    expect(existsSync(join(folder(), `${run.fileName!}.sha256`))).to.equal(false);
    expect((await get()).runs.map((r) => r.id)).not.to.include(run.id);
    expect((await t.admin.request('DELETE', `/api/system/backups/${run.id}`)).status).to.equal(404);
    expect(existsSync(join(folder(), 'notes.txt'))).to.equal(true);
  });

  it('read keys read but may not act (403); selected-projects keys get the all-projects 403', async () => {
    const read = await t.clientWith('read', 'all');
    expect((await read.request('GET', '/api/system/backups')).status).to.equal(200);
    expect((await read.request('POST', '/api/system/backups', { passphrase: PASSPHRASE })).status).to.equal(403);
    expect((await read.request('PATCH', '/api/system/backups', { keep: 3 })).status).to.equal(403);
    const run = (await get()).runs.find((r) => r.status === 'succeeded')!;
    expect((await read.request('GET', `/api/system/backups/${run.id}/download`)).status).to.equal(403);
    const { project } = await t.admin.createProject({ name: 'selected', description: '' });
    const selected = await t.clientWith('write', [project.id]);
    for (const [method, path] of [
      ['GET', '/api/system/backups'],
      ['POST', '/api/system/backups'],
      ['GET', `/api/system/backups/${run.id}/download`],
      ['DELETE', `/api/system/backups/${run.id}`],
    ] as const) {
      const res = await selected.request<ErrorBody>(method, path, method === 'POST' ? { passphrase: PASSPHRASE } : undefined);
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body.error.message).to.include('needs a key over all projects');
    }
  });

  describe('to the S3 storage', () => {
    let s3: TestS3Server;
    const foreignKey = 'berth-server/someone-elses-file.txt';
    const store = () =>
      s3Store({ endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, prefix: 'team/', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true });

    before(async () => {
      s3 = await startS3Server();
      const res = await t.admin.request('PUT', '/api/system/backup-storage', {
        endpoint: s3.endpoint,
        region: s3.region,
        bucket: s3.bucket,
        prefix: 'team/',
        accessKeyId: s3.accessKeyId,
        secretAccessKey: s3.secretAccessKey,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const other = join(root, 'other.txt');
      writeFileSync(other, 'put here by another tool\n');
      await store().upload(foreignKey, other, 25);
    });
    after(async () => {
      await s3?.stop();
    });

    it('uploads the archive and its .sha256 under berth-server/, removes the local copy, and downloads it back byte-equal', async () => {
      const res = await patch({ storageId: 'remote', keep: 1 });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const before = readdirSync(folder()).sort();
      const run = await runNow();
      expect(run, run.error ?? '').to.include({ status: 'succeeded', location: 's3', storageId: 'remote' });
      expect(readdirSync(folder()).sort()).to.deep.equal(before.filter((n) => !n.startsWith('berth-server-') || n.includes('elsewhere')).sort());
      const puts = s3.requests.filter((r) => r.method === 'PUT' || r.method === 'POST').map((r) => r.path);
      expect(puts).to.include(`/${s3.bucket}/team/berth-server/${run.fileName!}`);
      expect(puts).to.include(`/${s3.bucket}/team/berth-server/${run.fileName!}.sha256`);
      const bytes = Buffer.from(await (await t.admin.openServerBackupDownload(run.id)).arrayBuffer());
      expect(bytes.length).to.equal(run.sizeBytes);
      expect(sha256(bytes)).to.equal(run.sha256);
      const copy = join(root, run.fileName!);
      writeFileSync(copy, bytes);
      const manifest = await restoreServerArchive(copy, PASSPHRASE, { dataDir: join(root, 's3-restored/data'), etcDir: join(root, 's3-restored/etc'), caddyHome: join(root, 's3-restored/caddy') });
      expect(manifest.counts.projects).to.equal(2);
    });

    it('retention deletes the older objects of its own runs only; another tool’s object under berth-server/ stays', async () => {
      const first = (await get()).runs.find((r) => r.status === 'succeeded' && r.location === 's3')!;
      const second = await runNow();
      expect(second.status).to.equal('succeeded');
      await t.daemon.core.serverBackups.settled();
      expect((await get()).runs.filter((r) => r.status === 'succeeded').map((r) => r.id)).to.deep.equal([second.id]);
      const deletes = s3.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);
      expect(deletes).to.include(`/${s3.bucket}/team/berth-server/${first.fileName!}`);
      expect(deletes).to.include(`/${s3.bucket}/team/berth-server/${first.fileName!}.sha256`);
      expect(deletes).not.to.include(`/${s3.bucket}/team/${foreignKey}`);
      const { body } = await store().download(foreignKey);
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).toString()).to.equal('put here by another tool\n');
      await store()
        .download(`berth-server/${first.fileName!}`)
        .then(
          () => expect.fail('the older archive is still in the bucket'),
          (err: Error) => expect(err.message).to.match(/NoSuchKey|404/),
        );
    });
  });

  it('a run whose upload is refused ends `failed` with the reason, and leaves no file', async () => {
    const s3 = await startS3Server();
    try {
      const bad = { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' };
      expect((await t.admin.request('PUT', '/api/system/backup-storage', bad)).status).to.equal(200);
      expect((await patch({ storageId: 'remote' })).status).to.equal(200);
      const before = readdirSync(folder()).sort();
      const run = await runNow();
      expect(run).to.include({ status: 'failed', location: 's3', sha256: null });
      expect(run.error).to.include('SignatureDoesNotMatch');
      expect(run.error).not.to.include('not-the-secret');
      expect(readdirSync(folder()).sort()).to.deep.equal(before);
      expect((await t.admin.request('GET', `/api/system/backups/${run.id}/download`)).status).to.equal(404);
      // a failed run is deleted as a record only
      expect((await t.admin.request('DELETE', `/api/system/backups/${run.id}`)).status).to.equal(200);
    } finally {
      await patch({ storageId: null });
      await t.admin.request('DELETE', '/api/system/backup-storage');
      await s3.stop();
    }
  });

  it('keeps the newest 10 failed runs (a schedule failing every hour does not pile up records), and the succeeded ones', async () => {
    const s3 = await startS3Server();
    try {
      const succeeded = (await get()).runs.filter((r) => r.status === 'succeeded').map((r) => r.id);
      expect(succeeded.length).to.be.greaterThan(0);
      const bad = { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' };
      expect((await t.admin.request('PUT', '/api/system/backup-storage', bad)).status).to.equal(200);
      expect((await patch({ storageId: 'remote' })).status).to.equal(200);
      const failed: string[] = [];
      for (let i = 0; i < 12; i++) {
        // the next run starts as soon as the last one reads failed: no 409 backup_running in between
        failed.unshift((await runNow()).id);
      }
      const runs = (await get()).runs;
      expect(runs.filter((r) => r.status === 'failed').map((r) => r.id)).to.deep.equal(failed.slice(0, 10));
      expect(runs.filter((r) => r.status === 'succeeded').map((r) => r.id)).to.deep.equal(succeeded);
    } finally {
      await patch({ storageId: null });
      await t.admin.request('DELETE', '/api/system/backup-storage');
      await s3.stop();
    }
  });

  it('a run a stopped daemon left `running` ends `failed` at start-up, and its files go', async () => {
    await t.daemon.core.serverBackups.settled();
    expect((await patch({ storageId: null, schedule: null })).status).to.equal(200);
    const name = 'berth-server-crashed-20260101T000000Z-deadbeef.tar.gz.enc';
    await t.restart(0, async () => {
      writeFileSync(join(folder(), name), 'half an archive');
      writeFileSync(join(folder(), `${name}.part`), 'half an archive');
      mkdirSync(join(folder(), '.stage-abc'));
      await withKnex(t.dataDir, (knex) =>
        knex('server_backups').insert({
          id: 'crashed-run',
          status: 'running',
          trigger: 'schedule',
          started_at: '2026-01-01T00:00:00.000Z',
          location: 'disk',
          berth_version: '0.0.0',
          file_name: name,
        }),
      );
    });
    const run = (await get()).runs.find((r) => r.id === 'crashed-run')!;
    expect(run).to.include({ status: 'failed', error: 'the daemon stopped during the backup' });
    expect(run.finishedAt).to.be.a('string');
    expect(existsSync(join(folder(), name))).to.equal(false);
    expect(existsSync(join(folder(), `${name}.part`))).to.equal(false);
    expect(existsSync(join(folder(), '.stage-abc'))).to.equal(false);
    expect(existsSync(join(folder(), 'notes.txt'))).to.equal(true);
  });
});
