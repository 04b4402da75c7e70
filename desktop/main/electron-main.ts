// The Electron entry: wires the real Electron APIs into the plain modules of desktop/main. It
// compiles here against the `electron` package's types but is never run on the build machines
// (the Electron binary cannot be downloaded there); the logic it wires is tested in Node.
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  net,
  Notification,
  powerMonitor,
  protocol,
  safeStorage,
  shell,
  Tray,
  type MenuItemConstructorOptions,
  type WebContents,
} from 'electron';
import { statSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { APP_CSP, APP_ORIGIN, SCHEME } from './app-origin.js';
import { createBridgeHandlers } from './bridge-handlers.js';
import { DesktopApp, type TrayView } from './desktop-app.js';
import { registerIpcHandlers } from './ipc-main.js';
import { checkForUpdate } from './update-check.js';
import { closeBehaviour, type MenuItem } from './tray-model.js';
import { trayIconPng } from './tray-icons.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CONSOLE_DIR = join(HERE, '../../console'); // dist/console, built by installers/build-console.sh
const PRELOAD = join(HERE, '../preload/preload.js');
const UPDATE_FEED = process.env.BERTH_DESKTOP_UPDATE_URL ?? 'https://berth.example.com/desktop';

protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

const trustedWebContents = new Set<number>();
let window: BrowserWindow | null = null;
let tray: Tray | null = null;
let quitting = false;
let explainedClose = false;
let updateItem: MenuItem | null = null;

function toElectronMenu(items: MenuItem[]): MenuItemConstructorOptions[] {
  return items.map((i) => ({
    ...(i.label !== undefined ? { label: i.label } : {}),
    ...(i.type ? { type: i.type } : {}),
    ...(i.enabled !== undefined ? { enabled: i.enabled } : {}),
    ...(i.checked !== undefined ? { checked: i.checked } : {}),
    ...(i.click ? { click: i.click } : {}),
    ...(i.submenu ? { submenu: toElectronMenu(i.submenu) } : {}),
  }));
}

/** A tray where the desktop has one: GNOME shows none without an extension, so the window stays the way in there. */
function createTray(): Tray | null {
  if (process.platform === 'linux' && /gnome/i.test(process.env.XDG_CURRENT_DESKTOP ?? '') && !process.env.BERTH_FORCE_TRAY) return null;
  try {
    return new Tray(nativeImage.createFromBuffer(trayIconPng('none')));
  } catch {
    return null;
  }
}

function openWindow(serverId: string, route: string): void {
  const url = `${APP_ORIGIN}${route}${serverId ? `#server=${encodeURIComponent(serverId)}` : ''}`;
  if (window && !window.isDestroyed()) {
    window.loadURL(url).catch(logFailure(`loading ${url}`));
    window.show();
    window.focus();
    return;
  }
  window = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'Berth',
    webPreferences: { preload: PRELOAD, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: false },
  });
  const wc = window.webContents;
  trustedWebContents.add(wc.id);
  wc.on('destroyed', () => trustedWebContents.delete(wc.id));
  guardNavigation(wc);
  window.on('close', (e) => {
    if (quitting) return;
    const how = closeBehaviour(tray !== null);
    e.preventDefault();
    if (how.action === 'hide') window?.hide();
    else window?.minimize();
    if (!explainedClose) {
      explainedClose = true;
      new Notification({ title: 'Berth is still running', body: how.message }).show();
    }
  });
  window.loadURL(url).catch(logFailure(`loading ${url}`));
}

/** The main process has no other log: a failed window load or browser hand-off goes to its stderr. */
function logFailure(what: string): (err: unknown) => void {
  return (err) => console.error(`berth: ${what} failed:`, err);
}

function openExternal(url: string): void {
  shell.openExternal(url).catch(logFailure(`opening ${url} in the browser`));
}

/** External links open in the browser; the window never leaves the app's own pages. */
function guardNavigation(wc: WebContents): void {
  const external = (url: string) => {
    if (/^https?:\/\//.test(url)) openExternal(url);
  };
  wc.setWindowOpenHandler(({ url }) => {
    external(url);
    return { action: 'deny' };
  });
  wc.on('will-navigate', (e, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) {
      e.preventDefault();
      external(url);
    }
  });
  wc.on('will-attach-webview', (e) => e.preventDefault());
  wc.session.setPermissionRequestHandler((_wc, _permission, done) => done(false));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** berth-app://console/<path>: a file of dist/console, or index.html for the console's routes. */
function serveConsole(): void {
  protocol.handle(SCHEME, async (req) => {
    const { pathname } = new URL(req.url);
    const file = normalize(join(CONSOLE_DIR, decodeURIComponent(pathname)));
    const target = file.startsWith(CONSOLE_DIR + sep) && isFile(file) ? file : join(CONSOLE_DIR, 'index.html');
    const res = await net.fetch(pathToFileURL(target).toString());
    const headers = new Headers(res.headers);
    headers.set('content-security-policy', APP_CSP);
    return new Response(res.body, { status: res.status, headers });
  });
}

if (!app.requestSingleInstanceLock()) app.quit();
app.on('second-instance', () => {
  if (window && !window.isDestroyed()) {
    window.show();
    window.focus();
  } else openWindow('', '/');
});

app
  .whenReady()
  .then(() => {
    serveConsole();
    tray = createTray();
    const trayView: TrayView | null = tray && {
      render: (state, tooltip, menu) => {
        tray!.setImage(nativeImage.createFromBuffer(trayIconPng(state)));
        tray!.setToolTip(tooltip);
        tray!.setContextMenu(Menu.buildFromTemplate(toElectronMenu(updateItem ? [updateItem, ...menu] : menu)));
      },
    };
    const desktop = new DesktopApp({
      configDir: app.getPath('userData'),
      safeStorage,
      platform: process.platform,
      createNotification: (c) => new Notification(c),
      powerMonitor,
      tray: trayView,
      openInWindow: openWindow,
      // the default name in the user's Downloads folder, the dialog sheet on the window
      showSaveDialog: (o) => {
        const options = { ...o, defaultPath: join(app.getPath('downloads'), o.defaultPath) };
        return window && !window.isDestroyed() ? dialog.showSaveDialog(window, options) : dialog.showSaveDialog(options);
      },
      quit: () => {
        quitting = true;
        app.quit();
      },
    });
    const handlers = createBridgeHandlers(desktop, { appOrigin: APP_ORIGIN, trustedWebContents });
    registerIpcHandlers(ipcMain, handlers);
    app.on('web-contents-created', (_e, wc) => guardNavigation(wc));
    app.on('before-quit', () => {
      quitting = true;
      desktop.stop();
    });
    desktop.start();
    if (desktop.servers.list().length === 0 || !tray) openWindow(desktop.servers.list()[0]?.id ?? '', '/');
    const store = desktop.secrets.status();
    if (store.corruptBackup) new Notification({ title: 'Berth could not read its stored keys', body: `The file was kept as ${store.corruptBackup}; add the keys again.` }).show();
    void checkForUpdate(UPDATE_FEED, app.getVersion(), process.platform)
      .then((u) => {
        if (u) updateItem = { label: `Update available: ${u.version}…`, click: () => openExternal(u.url) };
      })
      .catch(() => undefined);
  })
  .catch((err: unknown) => {
    // a start that failed half-way (no window, maybe no tray) must not linger unseen
    logFailure('starting the desktop app')(err);
    quitting = true;
    app.quit();
  });

app.on('window-all-closed', () => {
  // the app keeps watching the servers from the tray (or the task bar, see closeBehaviour)
});
