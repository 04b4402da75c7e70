// The only stand-ins the desktop tests use: Electron's safeStorage, Notification, Tray,
// powerMonitor, dialog.showSaveDialog and the IPC pair (ipcMain, ipcRenderer, contextBridge,
// webContents), which exist only inside the Electron binary (it cannot be downloaded or run on
// these machines). Everything else in the desktop suites is real: daemons, Docker, git, TLS, and
// the compiled preload itself, run in a context that can require only `electron`, as the sandbox.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import type { ShowSaveDialog } from '../../desktop/main/downloads.js';
import type { IpcInvokeEvent, IpcMainLike, IpcWebContents } from '../../desktop/main/ipc-main.js';
import type { BerthApi } from '../../desktop/ipc/contract.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import type { TrayView } from '../../desktop/main/desktop-app.js';
import type { NotificationLike } from '../../desktop/main/notifier.js';
import type { SafeStorageLike } from '../../desktop/main/secret-store.js';
import type { MenuItem, OverallState } from '../../desktop/main/tray-model.js';

/** safeStorage with a keychain-held key (AES-256-GCM under a per-instance secret), reporting `backend`. */
export function safeStorageStandIn(backend = 'gnome_libsecret', secret = randomBytes(32)): SafeStorageLike & { secret: Buffer } {
  return {
    secret,
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptString(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', secret, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    decryptString(buf) {
      const d = createDecipheriv('aes-256-gcm', secret, buf.subarray(0, 12));
      d.setAuthTag(buf.subarray(12, 28));
      return Buffer.concat([d.update(buf.subarray(28)), d.final()]).toString('utf8');
    },
  };
}

export interface ShownNotification {
  title: string;
  body: string;
  at: number;
  click(): void;
}

export function notificationStandIn(): { shown: ShownNotification[]; create(c: { title: string; body: string }): NotificationLike } {
  const shown: ShownNotification[] = [];
  return {
    shown,
    create(c) {
      const clicks: (() => void)[] = [];
      return {
        on: (_e: 'click', l: () => void) => clicks.push(l),
        show: () => shown.push({ ...c, at: Date.now(), click: () => clicks.forEach((l) => l()) }),
      };
    },
  };
}

export function trayStandIn(): TrayView & { renders: { state: OverallState; tooltip: string; menu: MenuItem[] }[] } {
  const renders: { state: OverallState; tooltip: string; menu: MenuItem[] }[] = [];
  return { renders, render: (state, tooltip, menu) => renders.push({ state, tooltip, menu }) };
}

export function powerMonitorStandIn(): EventEmitter {
  return new EventEmitter();
}

/** dialog.showSaveDialog answering `answer()` (a path, or null: cancelled), recording each default name. */
export function saveDialogStandIn(answer: () => string | null): ShowSaveDialog & { asked: { title: string; defaultPath: string }[] } {
  const asked: { title: string; defaultPath: string }[] = [];
  const show = (o: { title: string; defaultPath: string }) => {
    asked.push(o);
    const path = answer();
    return Promise.resolve(path ? { canceled: false, filePath: path } : { canceled: true });
  };
  return Object.assign(show, { asked });
}

type Listener = (event: IpcInvokeEvent, ...args: unknown[]) => unknown;

/**
 * ipcMain, and windows whose webContents run the compiled preload (dist/desktop/preload/preload.js)
 * with an ipcRenderer wired to that ipcMain: `window(...).berth` is what the renderer gets. As in
 * Electron, arguments and results are structured clones and a handler's throw rejects the invoke
 * with "Error invoking remote method '<channel>': <error>". `channels` records every channel used.
 */
export function ipcStandIn() {
  const handlers = new Map<string, Listener>();
  const channels = { handled: [] as string[], invoked: [] as string[], listened: [] as string[], sent: [] as string[] };
  const ipcMain: IpcMainLike = {
    handle(channel, listener) {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      channels.handled.push(channel);
      handlers.set(channel, listener);
    },
  };
  let nextId = 0;
  /** A window: its webContents id, and the URL of the frame its calls come from (`mainFrame: false`: a subframe). */
  function window(o: { frameUrl: string; mainFrame?: boolean; webContentsId?: number }): { berth: BerthApi; webContents: IpcWebContents } {
    const destroyed = new EventEmitter();
    const rendererListeners = new Map<string, ((event: unknown, ...args: unknown[]) => void)[]>();
    const mainFrame = { url: o.frameUrl };
    const webContents: IpcWebContents = {
      id: o.webContentsId ?? ++nextId + 100,
      mainFrame,
      isDestroyed: () => false,
      send(channel, ...args) {
        channels.sent.push(channel);
        for (const l of rendererListeners.get(channel) ?? []) l({}, ...structuredClone(args));
      },
      once: (event, listener) => destroyed.once(event, listener),
    };
    const senderFrame = o.mainFrame === false ? { url: o.frameUrl } : mainFrame;
    const ipcRenderer = {
      async invoke(channel: string, ...args: unknown[]): Promise<unknown> {
        channels.invoked.push(channel);
        const h = handlers.get(channel);
        if (!h) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
        try {
          return structuredClone(await h({ sender: webContents, senderFrame }, ...structuredClone(args)));
        } catch (err) {
          throw new Error(`Error invoking remote method '${channel}': ${String(err)}`, { cause: err });
        }
      },
      on(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
        channels.listened.push(channel);
        rendererListeners.set(channel, [...(rendererListeners.get(channel) ?? []), listener]);
      },
    };
    const exposed: Record<string, unknown> = {};
    const contextBridge = { exposeInMainWorld: (name: string, api: unknown) => (exposed[name] = api) };
    const module = { exports: {} };
    const sandboxRequire = (id: string) => {
      if (id === 'electron') return { contextBridge, ipcRenderer };
      throw new Error(`a sandboxed preload cannot require ${id}`);
    };
    runInNewContext(readFileSync(join(REPO_ROOT, 'dist/desktop/preload/preload.js'), 'utf8'), { require: sandboxRequire, module, exports: module.exports }, { filename: 'preload.js' });
    return { berth: exposed.berth as BerthApi, webContents };
  }
  return { ipcMain, window, channels };
}

/**
 * A page init script running the compiled preload as Electron's sandbox would, in the page (for
 * Chromium tests): `require('electron')` gives a contextBridge that sets window[name] and an
 * ipcRenderer whose invoke is the page binding `__berthInvoke(channel, ...args)`; the test pushes
 * main's messages with `window.__berthPush(channel, ...args)`.
 */
export function preloadInitScript(): string {
  const preload = readFileSync(join(REPO_ROOT, 'dist/desktop/preload/preload.js'), 'utf8');
  return `(() => {
  const listeners = new Map();
  window.__berthPush = (channel, ...args) => (listeners.get(channel) || []).forEach((l) => l({}, ...args));
  const electron = {
    contextBridge: { exposeInMainWorld: (name, api) => { window[name] = api; } },
    ipcRenderer: {
      invoke: (channel, ...args) => window.__berthInvoke(channel, ...args),
      on: (channel, listener) => listeners.set(channel, [...(listeners.get(channel) || []), listener]),
    },
  };
  const module = { exports: {} };
  const require = (id) => { if (id === 'electron') return electron; throw new Error('a sandboxed preload cannot require ' + id); };
  (function (require, module, exports) {\n${preload}\n})(require, module, module.exports);
})();`;
}
