// The desktop bridge downloads a backup to a file through the real handlers: a real daemon with a
// real Redis service and a real backup, the real main process (DesktopApp, bridge handlers, IPC
// registration) and the compiled preload; only Electron's APIs are stand-ins (ipcMain and the
// window's webContents, dialog.showSaveDialog answering a temp path). A cancelled dialog writes
// nothing, a path off the allow-list or a call from another frame reaches no server, and a
// download cut off half-way leaves no file behind.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBridgeHandlers } from '../../desktop/main/bridge-handlers.js';
import { DesktopApp } from '../../desktop/main/desktop-app.js';
import { registerIpcHandlers } from '../../desktop/main/ipc-main.js';
import type { BerthApi } from '../../desktop/ipc/contract.js';
import type { Backup } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImage } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { ipcStandIn, notificationStandIn, powerMonitorStandIn, safeStorageStandIn, saveDialogStandIn, trayStandIn } from './stand-ins.js';

const APP_ORIGIN = 'berth-app://console';
const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe('desktop downloads through the bridge', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let counter: Server;
  const hits: string[] = [];
  let configDir: string;
  let saveDir: string;
  let app: DesktopApp;
  let berth: BerthApi;
  let ipc: ReturnType<typeof ipcStandIn>;
  let answer: string | null = null;
  const dialog = saveDialogStandIn(() => answer);
  let serverId: string;
  let counterId: string;
  let dbId: string;
  let backup: Backup;

  before(async function () {
    this.timeout(600_000);
    const redis = requireDatabaseImage('redis');
    t = await startTestDaemon({ BERTH_IMAGE_REDIS: redis, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    const projectId = (await t.admin.createProject({ name: uniq('desk-dl') })).project.id;
    dbId = (await t.admin.createService(projectId, { name: uniq('cache'), repoFullName: 'database:redis' })).service.id;
    const { deployment } = await t.admin.deploy(dbId);
    const done = await waitForDeployment(t.admin, dbId, deployment.id, ['running', 'failed'], 300_000);
    if (done.status !== 'running') throw new Error((await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n'));
    await t.admin.databaseQuery(dbId, 'SET k "héllo wörld ✓"');
    const started = (await t.admin.createBackup(dbId, 'disk')).backup;
    backup = await until('the backup to finish', async () => (await t.admin.listBackups(dbId)).backups.find((b) => b.id === started.id && b.status !== 'running'), 240_000, 250);
    if (backup.status !== 'succeeded') throw new Error(`backup ${backup.status}: ${backup.error}`);

    // a second "server" that only counts what reaches it, and cuts a download off half-way
    counter = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      if (req.url === '/api/health') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, version: 'counter' }));
      if (req.url?.endsWith('/download')) {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '100000', 'content-disposition': 'attachment; filename="cut.dump"' });
        res.write(Buffer.alloc(30_000, 7));
        setTimeout(() => res.destroy(), 100);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'no' } }));
    });
    await new Promise<void>((r) => counter.listen(0, '127.0.0.1', () => r()));

    configDir = mkdtempSync(join(tmpdir(), 'berth-desktop-dl-'));
    saveDir = mkdtempSync(join(tmpdir(), 'berth-desktop-saved-'));
    const notes = notificationStandIn();
    app = new DesktopApp({
      configDir,
      safeStorage: safeStorageStandIn(),
      platform: 'linux',
      createNotification: (c) => notes.create(c),
      powerMonitor: powerMonitorStandIn(),
      tray: trayStandIn(),
      openInWindow: () => undefined,
      quit: () => undefined,
      showSaveDialog: dialog,
    });
    serverId = (await app.addServer({ name: 'daemon', url: t.url, key: (await t.admin.createKey({ name: 'laptop', access: 'write', projects: 'all' })).token })).server.id;
    counterId = (await app.addServer({ name: 'counter', url: `http://127.0.0.1:${(counter.address() as AddressInfo).port}`, key: 'berth_counter_key' })).server.id;
    ipc = ipcStandIn();
    registerIpcHandlers(ipc.ipcMain, createBridgeHandlers(app, { appOrigin: APP_ORIGIN, trustedWebContents: new Set([1]) }));
    berth = ipc.window({ frameUrl: `${APP_ORIGIN}/services/${dbId}/backups`, webContentsId: 1 }).berth;
  });

  beforeEach(() => {
    answer = null;
    dialog.asked.length = 0;
    hits.length = 0;
  });

  after(async () => {
    app?.stop();
    await new Promise((r) => (counter ? counter.close(r) : r(undefined)));
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    for (const d of [configDir, saveDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  const backupPath = () => `/api/services/${dbId}/database/backups/${backup.id}/download`;

  it("the desktop bridge downloads a backup to a file through the real handlers: the file's bytes are the API's download", async () => {
    answer = join(saveDir, 'picked.dump');
    const result = await berth.download(serverId, backupPath(), 'suggested.dump');
    const api = await t.admin.downloadBackup(dbId, backup.id);
    expect(result).to.deep.equal({ saved: true, path: answer, bytes: api.bytes.length });
    const file = readFileSync(answer);
    expect(sha256(file)).to.equal(sha256(api.bytes));
    expect(sha256(file)).to.equal(backup.checksum);
    // the dialog offered the server's file name (Content-Disposition), not the window's suggestion
    const served = /filename="([^"]+)"/.exec(api.headers.get('content-disposition') ?? '')![1];
    expect(dialog.asked).to.deep.equal([{ title: 'Save download', defaultPath: served }]);
    expect(readdirSync(saveDir)).to.deep.equal(['picked.dump']);
  });

  it('a cancelled save dialog writes nothing and answers saved: false', async () => {
    const before = readdirSync(saveDir);
    expect(await berth.download(serverId, backupPath(), 'x.dump')).to.deep.equal({ saved: false });
    expect(dialog.asked).to.have.length(1);
    expect(readdirSync(saveDir)).to.deep.equal(before);
  });

  it("the server's refusal comes back as its error, with no dialog", async () => {
    const result = await berth.download(serverId, `/api/services/${dbId}/database/backups/bk_nope/download`, 'x.dump');
    expect(result.saved).to.equal(false);
    expect(!result.saved && result.failure?.status).to.equal(404);
    expect(dialog.asked).to.deep.equal([]);
  });

  it('a path not on the allow-list is refused before any request', async () => {
    answer = join(saveDir, 'never.dump');
    const paths = [
      '/api/services/s1/database/backups', // a JSON route, not a download
      '/api/keys',
      '/api/services/s1/database/backups/b1/download/../../../../keys',
      '/api/services/s1/database/backups/b1/download?x=1',
      '/api/services/s1%2F..%2Fx/database/tls/ca',
      'http://127.0.0.1:1/api/services/s1/database/tls/ca',
    ];
    for (const p of paths) {
      let err: Error | null = null;
      await berth.download(counterId, p, 'x').catch((e: Error) => (err = e));
      expect(err, p).to.be.an('error');
      expect(err!.message, p).to.match(/refused: .* is not a download the app offers/);
    }
    expect(hits, 'requests that reached the server').to.deep.equal([]);
    expect(dialog.asked).to.deep.equal([]);
    expect(existsSync(answer)).to.equal(false);
  });

  it('an untrusted sender is refused: another window, a subframe, another origin', async () => {
    answer = join(saveDir, 'never.dump');
    const senders = [
      ipc.window({ frameUrl: `${APP_ORIGIN}/`, webContentsId: 7 }), // not one of the app's windows
      ipc.window({ frameUrl: `${APP_ORIGIN}/`, webContentsId: 1, mainFrame: false }),
      ipc.window({ frameUrl: 'https://evil.example/', webContentsId: 1 }),
    ];
    for (const w of senders) {
      let err: Error | null = null;
      await w.berth.download(counterId, '/api/services/s1/database/backups/b1/download', 'x').catch((e: Error) => (err = e));
      expect(err).to.be.an('error');
      expect(err!.message).to.match(/refused: the call does not come from the Berth window/);
    }
    expect(hits).to.deep.equal([]);
    expect(dialog.asked).to.deep.equal([]);
    expect(existsSync(answer)).to.equal(false);
  });

  it('a download cut off half-way leaves no file (nor part file) and says it failed', async () => {
    answer = join(saveDir, 'cut.dump');
    const result = await berth.download(counterId, '/api/services/s1/database/backups/b1/download', 'x.dump');
    expect(hits).to.deep.equal(['GET /api/services/s1/database/backups/b1/download']);
    expect(dialog.asked.map((a) => a.defaultPath)).to.deep.equal(['cut.dump']);
    expect(result.saved).to.equal(false);
    expect(!result.saved && (result.failure?.body as { error: { code: string } }).error.code).to.equal('download_failed');
    expect(readdirSync(saveDir).filter((f) => f.startsWith('cut'))).to.deep.equal([]);
  });
});
