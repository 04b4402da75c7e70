// The console in Chromium in desktop mode: window.berth is the compiled preload's bridge, its
// ipcRenderer wired through playwright's exposeBinding to ipcMain's handlers registered by
// desktop/main/ipc-main.ts over the real main-process handlers (desktop/main/bridge-handlers.ts
// over DesktopApp) holding two real daemons. The page is served from the app's own origin (a
// routed host standing in for the berth-app:// protocol); a frame from another origin is refused.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { APP_CSP } from '../../desktop/main/app-origin.js';
import { createBridgeHandlers } from '../../desktop/main/bridge-handlers.js';
import { DesktopApp } from '../../desktop/main/desktop-app.js';
import { registerIpcHandlers, type IpcInvokeEvent, type IpcWebContents } from '../../desktop/main/ipc-main.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImage } from '../helpers/databases.js';
import { requireDocker } from '../helpers/docker.js';
import { missingDockerfile } from '../helpers/failing-apps.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { notificationStandIn, powerMonitorStandIn, preloadInitScript, safeStorageStandIn, saveDialogStandIn, trayStandIn } from './stand-ins.js';

const APP_ORIGIN = 'http://console.berth-app.test';
const CONSOLE = join(REPO_ROOT, 'dist/console');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.json': 'application/json' };

describe('console in Chromium in desktop mode (bridge to the main process)', function () {
  this.timeout(120_000);
  let git: GitServer;
  let a: TestDaemon;
  let b: TestDaemon;
  let dir: string;
  let app: DesktopApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const notes = notificationStandIn();
  const ids: { alpha: string; beta: string } = { alpha: '', beta: '' };
  const names = { alpha: uniq('alpha-shop'), beta: uniq('beta-blog') };
  const pageErrors: string[] = [];
  let saveTo: string | null = null;
  const dialog = saveDialogStandIn(() => saveTo);

  before(async function () {
    this.timeout(300_000);
    requireDocker();
    requireConsoleBuild();
    git = await startGitServer({});
    a = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1', BERTH_IMAGE_REDIS: requireDatabaseImage('redis') });
    b = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    await a.admin.createProject({ name: names.alpha });
    await b.admin.createProject({ name: names.beta });
    dir = mkdtempSync(join(tmpdir(), 'berth-desktop-window-'));
    app = new DesktopApp({
      configDir: dir,
      safeStorage: safeStorageStandIn(),
      platform: 'linux',
      createNotification: (c) => notes.create(c),
      powerMonitor: powerMonitorStandIn(),
      tray: trayStandIn(),
      // what electron-main's openWindow does: load the route, on that server, in the window
      openInWindow: (serverId, route) => void page.goto(`${APP_ORIGIN}${route}#server=${encodeURIComponent(serverId)}`),
      showSaveDialog: dialog,
      quit: () => undefined,
    });
    app.start();
    ids.alpha = (await app.addServer({ name: 'alpha', url: a.url, key: (await a.admin.createKey({ name: 'laptop', access: 'write', projects: 'all' })).token })).server.id;
    ids.beta = (await app.addServer({ name: 'beta', url: b.url, key: (await b.admin.createKey({ name: 'laptop', access: 'write', projects: 'all' })).token })).server.id;

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light' });
    // the app's origin: dist/console, as electron-main's protocol handler serves it
    await context.route(`${APP_ORIGIN}/**`, async (route) => {
      const { pathname } = new URL(route.request().url());
      const file = normalize(join(CONSOLE, decodeURIComponent(pathname)));
      const path = file.startsWith(CONSOLE + '/') && existsSync(file) && pathname !== '/' ? file : join(CONSOLE, 'index.html');
      await route.fulfill({ status: 200, body: readFileSync(path), headers: { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'content-security-policy': APP_CSP } });
    });
    // another origin, framing the app's own page
    await context.route('http://evil.berth-app.test/**', (route) =>
      route.fulfill({ status: 200, body: `<!doctype html><title>other</title><iframe title="app" src="${APP_ORIGIN}/"></iframe>`, headers: { 'content-type': 'text/html' } }),
    );

    // the real preload (dist/desktop/preload/preload.js) in every page, its ipcRenderer a binding
    // into ipcMain's handlers as ipc-main.ts registers them over the real bridge handlers
    const handlers = createBridgeHandlers(app, { appOrigin: APP_ORIGIN, trustedWebContents: new Set([1]) });
    const registered = new Map<string, (e: IpcInvokeEvent, ...args: unknown[]) => unknown>();
    registerIpcHandlers({ handle: (channel, listener) => void registered.set(channel, listener) }, handlers);
    const frames = new WeakMap<Frame, { url: string }>();
    const frameOf = (f: Frame) =>
      frames.get(f) ??
      (frames.set(f, {
        get url() {
          return f.url();
        },
      }),
      frames.get(f)!);
    const webContentsOf = (p: Page): IpcWebContents => ({
      id: 1,
      mainFrame: frameOf(p.mainFrame()),
      isDestroyed: () => p.isClosed(),
      send: (channel, ...args) =>
        void p.evaluate(([c, a]) => (window as unknown as { __berthPush(c: string, ...x: unknown[]): void }).__berthPush(c, ...a), [channel, args] as const).catch(() => undefined),
      once: (_event, listener) => p.once('close', listener),
    });
    await context.exposeBinding('__berthInvoke', (source, channel: string, ...args: unknown[]) => {
      const handler = registered.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      return handler({ sender: webContentsOf(source.page), senderFrame: frameOf(source.frame) }, ...args);
    });
    await context.addInitScript({ content: preloadInitScript() });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
  });
  after(async () => {
    await browser?.close();
    app?.stop();
    await a?.stop();
    await b?.stop();
    await git?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const servers = () => page.getByRole('navigation', { name: 'Servers' });

  it('shows every server in one window and switches between them', async () => {
    await page.goto(`${APP_ORIGIN}/`);
    await servers()
      .getByRole('button', { name: /^alpha/ })
      .waitFor();
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    await page.getByText(names.alpha).first().waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    expect(await page.getByText(names.beta).count()).to.equal(0);
    await screenshot(page, 'desktop-01-server-alpha');
    expect(await accessibilityProblems(page), 'accessibility').to.deep.equal([]);

    await servers().getByRole('button', { name: /^beta/ }).click();
    await page.getByText(names.beta).first().waitFor();
    expect(await page.getByText(names.alpha).count()).to.equal(0);
    expect(await servers().getByRole('button', { name: /^beta/ }).getAttribute('aria-current')).to.equal('true');
    await page.getByText('Live', { exact: true }).waitFor();
    expect(page.url()).to.include(`#server=${ids.beta}`);
    await screenshot(page, 'desktop-02-server-beta');

    await servers()
      .getByRole('button', { name: /^alpha/ })
      .click();
    await page.getByText(names.alpha).first().waitFor();
    // the app's policy forbids any network from the page (connect-src 'none'): nothing tried
    expect(pageErrors).to.deep.equal([]);
  });

  it('a deploy failing on one server shows in the all-servers overview and notifies once', async () => {
    const repo = `acme/${uniq('broken')}` as const;
    await git.commit(repo, missingDockerfile.files);
    const project = (await a.admin.listProjects()).projects.find((p) => p.name === names.alpha)!;
    const { service } = await a.admin.createService(project.id, { name: 'broken', repoFullName: repo, ...missingDockerfile.service });
    await servers().getByRole('button', { name: /^beta/ }).click();
    const { deployment } = await a.admin.deploy(service.id);
    await waitForDeployment(a.admin, service.id, deployment.id, ['failed'], 60_000);
    await until(
      'the failure in the main process',
      async () =>
        app
          .summaries()
          .find((s) => s.id === ids.alpha)!
          .failed.includes(service.id),
      5_000,
      50,
    );
    // the switcher updates live from the event streams, without a reload or a click
    await servers()
      .getByRole('button', { name: /^alpha 1 failed/ })
      .waitFor({ timeout: 5_000 });
    await servers().getByRole('button', { name: 'All servers' }).click();
    const overview = page.getByRole('region', { name: 'All servers' });
    await overview.getByText('services: 1 failed, 0 building').waitFor();
    await screenshot(page, 'desktop-03-all-servers');
    expect(await accessibilityProblems(page), 'accessibility').to.deep.equal([]);
    expect(notes.shown.map((n) => n.title)).to.deep.equal(['Deployment failed on alpha']);
    await overview.getByRole('button', { name: 'Open alpha' }).click();
    await page.getByText(names.alpha).first().waitFor();
    // clicking the notification opens that deployment's build log, on alpha, and says why it failed
    await servers().getByRole('button', { name: /^beta/ }).click();
    notes.shown[0]!.click();
    await page.getByText('Build log complete: failed.').waitFor({ timeout: 15_000 });
    expect(page.url()).to.include(`/services/${service.id}?d=${deployment.id}#server=${ids.alpha}`);
    expect(
      await servers()
        .getByRole('button', { name: /^alpha/ })
        .getAttribute('aria-current'),
    ).to.equal('true');
    await screenshot(page, 'desktop-05-notification-opens-log');
  });

  it('adds, tests, renames and removes a server from the window; keys never come back to it', async () => {
    await servers().getByRole('button', { name: 'Manage servers' }).click();
    const manage = page.getByRole('region', { name: 'Manage servers' });
    await manage.getByText(/Where keys are kept: .*keys\.json, encrypted with the system keychain/).waitFor();
    await manage.getByLabel('Server URL').fill(b.url);
    await manage.getByLabel('API key').fill('berth_not_a_key');
    await manage.getByLabel('Name (optional)').fill('gamma');
    await manage.getByRole('button', { name: 'Add server' }).click();
    await manage.getByRole('alert').filter({ hasText: 'Added gamma, but the test failed' }).waitFor();
    await servers()
      .getByRole('button', { name: /^gamma/ })
      .waitFor();
    await screenshot(page, 'desktop-04-manage-servers');
    expect(await accessibilityProblems(page), 'accessibility').to.deep.equal([]);
    const gamma = app.servers.list().find((x) => x.name === 'gamma')!;
    expect(app.secrets.get(gamma.id)).to.equal('berth_not_a_key');

    const row = manage.getByRole('listitem').filter({ has: page.getByLabel('Name of gamma') });
    await row.getByLabel('Name of gamma').fill('gamma-b');
    await row.getByRole('button', { name: 'Rename' }).click();
    await servers()
      .getByRole('button', { name: /^gamma-b/ })
      .waitFor();
    expect(app.servers.get(gamma.id)!.name).to.equal('gamma-b');
    const renamed = manage.getByRole('listitem').filter({ has: page.getByLabel('Name of gamma-b') });
    await renamed.getByRole('button', { name: 'Test gamma-b' }).click();
    await renamed.getByRole('status').filter({ hasText: 'Test failed' }).waitFor();

    const everything = await page.evaluate(async () =>
      JSON.stringify(await (window as unknown as { berth: { request(...a: unknown[]): Promise<unknown> } }).berth.request('app', 'GET', '/desktop/servers')),
    );
    for (const x of app.servers.list()) expect(everything).to.not.include(app.secrets.get(x.id)!);

    await renamed.getByRole('button', { name: 'Remove gamma-b' }).click();
    await until(
      'gamma gone',
      async () =>
        (await servers()
          .getByRole('button', { name: /^gamma/ })
          .count()) === 0,
      5_000,
      50,
    );
    expect(app.servers.list().map((x) => x.name)).to.deep.equal(['alpha', 'beta']);
    expect(app.secrets.get(gamma.id)).to.equal(undefined);
  });

  it('another origin, or the app page framed by it, cannot use the bridge', async () => {
    type Binding = { berth: { request(...a: unknown[]): Promise<unknown> } };
    const other = await context.newPage();
    try {
      await other.goto('http://evil.berth-app.test/');
      const fromOther = await other.evaluate(
        (id) =>
          (window as unknown as Binding).berth.request(id, 'GET', '/api/projects').then(
            () => 'answered',
            (e: Error) => e.message,
          ),
        ids.alpha,
      );
      expect(fromOther).to.include('refused');
      const framed = await until('the framed app page', async () => other.frames().find((f) => f !== other.mainFrame() && f.url().startsWith(APP_ORIGIN)), 5_000, 50);
      const fromFrame = await framed.evaluate(
        (id) =>
          (window as unknown as Binding).berth.request(id, 'GET', '/api/projects').then(
            () => 'answered',
            (e: Error) => e.message,
          ),
        ids.alpha,
      );
      expect(fromFrame).to.include('refused');
    } finally {
      await other.close();
    }
    const fromPage = await page.evaluate(
      (id) => (window as unknown as { berth: { request(...a: unknown[]): Promise<{ status: number }> } }).berth.request(id, 'GET', '/api/projects').then((r) => r.status),
      ids.alpha,
    );
    expect(fromPage).to.equal(200);
  });

  it("the console's Download button saves a backup in the desktop: the save dialog, then the file with the API's bytes", async function () {
    this.timeout(400_000);
    const { project } = await a.admin.createProject({ name: uniq('cache') });
    const { service } = await a.admin.createService(project.id, { name: 'cache', repoFullName: 'database:redis' });
    const { deployment } = await a.admin.deploy(service.id);
    const done = await waitForDeployment(a.admin, service.id, deployment.id, ['running', 'failed'], 300_000);
    expect(done.status).to.equal('running');
    await a.admin.databaseQuery(service.id, 'SET k v');
    const started = (await a.admin.createBackup(service.id, 'disk')).backup;
    const backup = await until('the backup', async () => (await a.admin.listBackups(service.id)).backups.find((x) => x.id === started.id && x.status !== 'running'), 120_000, 250);
    expect(backup.status).to.equal('succeeded');
    saveTo = join(dir, 'from-the-button.dump');
    await page.goto(`${APP_ORIGIN}/services/${service.id}/backups#server=${encodeURIComponent(ids.alpha)}`);
    await page.getByRole('button', { name: 'Download', exact: true }).click();
    await until('the saved file', async () => existsSync(saveTo!), 30_000, 100);
    expect(dialog.asked).to.have.length(1);
    expect(`sha256:${createHash('sha256').update(readFileSync(saveTo)).digest('hex')}`).to.equal(backup.checksum);
  });
});
