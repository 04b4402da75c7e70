// A DesktopApp (the main process's plain modules) with the stand-ins for what only exists inside
// Electron, in a temporary config dir: what the desktop suites drive against real daemons.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DesktopApp, type DesktopAppOptions } from '../../desktop/main/desktop-app.js';
import { notificationStandIn, powerMonitorStandIn, safeStorageStandIn, trayStandIn } from './stand-ins.js';

export interface Harness {
  app: DesktopApp;
  dir: string;
  notes: ReturnType<typeof notificationStandIn>;
  tray: ReturnType<typeof trayStandIn>;
  power: ReturnType<typeof powerMonitorStandIn>;
  opened: { serverId: string; route: string }[];
}

export function harness(opts: Partial<DesktopAppOptions> & { dir?: string } = {}): Harness {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'berth-desktop-'));
  const notes = notificationStandIn();
  const tray = trayStandIn();
  const power = powerMonitorStandIn();
  const opened: { serverId: string; route: string }[] = [];
  const app = new DesktopApp({
    configDir: dir,
    safeStorage: safeStorageStandIn(),
    platform: 'linux',
    createNotification: (c) => notes.create(c),
    powerMonitor: power,
    tray,
    openInWindow: (serverId, route) => opened.push({ serverId, route }),
    quit: () => undefined,
    stream: { backoffBaseMs: 200, backoffMaxMs: 1000 },
    notifier: { offlineDebounceMs: 1000 },
    ...opts,
  });
  return { app, dir, notes, tray, power, opened };
}
