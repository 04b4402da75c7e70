// The tray, as data: the worst state across servers picks the icon, each server gets a submenu
// (status, open, its last failed deployment), and the whole menu is rebuilt from state on every
// change. Where the desktop has no tray the window stays the way in (see closeBehaviour).
import { worstServiceStatus } from '../../shared/statuses.js';
import type { ConnectionState } from './event-stream.js';

export interface ServerView {
  id: string;
  name: string;
  colour: string;
  muted: boolean;
  connection: ConnectionState;
  /** serviceId -> last known status, from `service` events. */
  services: Record<string, string>;
  lastFailed?: { deploymentId: string; serviceId: string; at: string };
}

export type OverallState = 'none' | 'ok' | 'building' | 'failed' | 'offline';

const RANK: Record<OverallState, number> = { none: 0, ok: 1, building: 2, offline: 3, failed: 4 };

function serverState(s: ServerView): OverallState {
  if (s.connection.status !== 'online') return s.connection.status === 'offline' ? 'offline' : 'building';
  const worst = worstServiceStatus(Object.values(s.services));
  return worst === 'failed' || worst === 'building' ? worst : 'ok';
}

export function worstState(servers: ServerView[]): OverallState {
  return servers.map(serverState).reduce<OverallState>((a, b) => (RANK[b] > RANK[a] ? b : a), 'none');
}

export interface MenuItem {
  label?: string;
  type?: 'normal' | 'separator' | 'submenu' | 'checkbox';
  enabled?: boolean;
  checked?: boolean;
  submenu?: MenuItem[];
  click?: () => void;
}

export interface TrayActions {
  openWindow(): void;
  openServer(serverId: string): void;
  openDeployment(serverId: string, serviceId: string, deploymentId: string): void;
  setMuted(serverId: string, muted: boolean): void;
  quit(): void;
}

function statusLine(s: ServerView): string {
  const c = s.connection;
  if (c.status === 'offline') return `Offline since ${new Date(c.since ?? Date.now()).toLocaleTimeString()}`;
  if (c.status === 'connecting') return 'Connecting…';
  const statuses = Object.values(s.services);
  const failed = statuses.filter((x) => x === 'failed').length;
  const building = statuses.filter((x) => x === 'building').length;
  return failed ? `Connected: ${failed} failed service${failed === 1 ? '' : 's'}` : building ? `Connected: ${building} building` : 'Connected: all good';
}

export function trayTooltip(servers: ServerView[]): string {
  const state = worstState(servers);
  return state === 'none' ? 'Berth: no servers yet' : `Berth: ${servers.map((s) => `${s.name} ${serverState(s)}`).join(', ')}`;
}

export function buildTrayMenu(servers: ServerView[], actions: TrayActions): MenuItem[] {
  const items: MenuItem[] = [{ label: 'Open Berth', click: () => actions.openWindow() }, { type: 'separator' }];
  for (const s of servers) {
    const sub: MenuItem[] = [
      { label: statusLine(s), enabled: false },
      { label: 'Open', click: () => actions.openServer(s.id) },
    ];
    if (s.lastFailed) {
      const f = s.lastFailed;
      sub.push({ label: `Last failed deployment (${new Date(f.at).toLocaleTimeString()})`, click: () => actions.openDeployment(s.id, f.serviceId, f.deploymentId) });
    }
    sub.push({ label: 'Mute notifications', type: 'checkbox', checked: s.muted, click: () => actions.setMuted(s.id, !s.muted) });
    items.push({ label: `${s.name}: ${serverState(s)}`, type: 'submenu', submenu: sub });
  }
  if (servers.length === 0) items.push({ label: 'No servers yet', enabled: false });
  items.push({ type: 'separator' }, { label: 'Quit Berth', click: () => actions.quit() });
  return items;
}

/** What closing the window does: hide to the tray where there is one, else minimise and say where the app is. */
export function closeBehaviour(hasTray: boolean): { action: 'hide' | 'minimize'; message: string } {
  return hasTray
    ? { action: 'hide', message: 'Berth keeps watching your servers from the tray icon. Quit from its menu.' }
    : { action: 'minimize', message: 'This desktop has no tray: Berth stays open, minimised in your task bar, to keep watching your servers. Quit from the Berth menu.' };
}
