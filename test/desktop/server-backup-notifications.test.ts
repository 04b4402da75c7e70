// The desktop app's tray notification for a backup of Berth itself that failed (like a failed
// deployment's or a rolled back upgrade's): from the `server-backup` event, once per run, never for
// one that succeeded; a click opens the settings, where the "Backup of Berth" card says why. The
// failure is real: the S3 storage refuses the upload (a wrong secret).
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { until } from '../helpers/wait.js';
import { harness, type Harness } from './harness.js';

const PASSPHRASE = 'the desktop test passphrase';

describe('desktop: a failed backup of Berth raises a tray notification', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let h: Harness;
  let s3: TestS3Server;
  let root: string;
  let serverId: string;
  const saved = { etc: process.env.BERTH_ETC_DIR, caddy: process.env.BERTH_CADDY_HOME };

  const stream = () => h.app.streams.get(serverId)!;
  const runToEnd = async () => {
    const { run } = await t.admin.runServerBackup(PASSPHRASE);
    await t.daemon.core.serverBackups.settled();
    return (await t.admin.serverBackups()).runs.find((r) => r.id === run.id)!;
  };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'berth-desktop-server-backups-'));
    process.env.BERTH_ETC_DIR = join(root, 'etc');
    process.env.BERTH_CADDY_HOME = join(root, 'caddy');
    mkdirSync(join(root, 'etc'));
    s3 = await startS3Server();
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    const { token } = await t.admin.createKey({ name: 'desktop', access: 'write', projects: 'all' });
    h = harness();
    h.app.start();
    serverId = (await h.app.addServer({ name: 'prod', url: t.url, key: token })).server.id;
    await until('online', async () => stream().state.status === 'online', 10_000);
  });
  after(async () => {
    h?.app.stop();
    rmSync(h?.dir ?? '/nonexistent', { recursive: true, force: true });
    await t?.daemon.core.serverBackups.settled();
    await t?.stop();
    await s3?.stop();
    if (saved.etc === undefined) delete process.env.BERTH_ETC_DIR;
    else process.env.BERTH_ETC_DIR = saved.etc;
    if (saved.caddy === undefined) delete process.env.BERTH_CADDY_HOME;
    else process.env.BERTH_CADDY_HOME = saved.caddy;
    rmSync(root, { recursive: true, force: true });
  });

  it('a backup that succeeded says nothing', async () => {
    expect((await runToEnd()).status).to.equal('succeeded');
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.notes.shown.filter((n) => n.title.includes('Backup of Berth'))).to.deep.equal([]);
  });

  it('a failed one notifies once; a click opens the settings', async () => {
    await t.admin.request('PUT', '/api/system/backup-storage', { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' });
    await t.admin.patchServerBackups({ storageId: 'remote' });
    expect((await runToEnd()).status).to.equal('failed');
    await until('the notification', async () => h.notes.shown.some((n) => n.title === 'Backup of Berth failed on prod'), 10_000);
    const notes = h.notes.shown.filter((n) => n.title === 'Backup of Berth failed on prod');
    expect(notes).to.have.length(1);
    expect(notes[0]!.body).to.equal('The backup of Berth itself did not complete. Click to see why in the settings.');
    notes[0]!.click();
    expect(h.opened.at(-1)).to.deep.equal({ serverId, route: '/settings' });
    // a replay of the same run (a reconnect) does not notify again
    h.app.notifier.onEvent(serverId, { event: 'server-backup', data: { runId: (await t.admin.serverBackups()).runs[0]!.id, status: 'failed', trigger: 'manual' } });
    expect(h.notes.shown.filter((n) => n.title === 'Backup of Berth failed on prod')).to.have.length(1);
  });
});
