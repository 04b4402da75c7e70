// The only stand-ins the desktop tests use: Electron's safeStorage, Notification, Tray and
// powerMonitor, which exist only inside the Electron binary (it cannot be downloaded or run on
// these machines). Everything else in the desktop suites is real: daemons, Docker, git, TLS.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
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
