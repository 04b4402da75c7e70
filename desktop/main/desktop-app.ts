// The desktop app's main process without Electron: the server list and the keys, one event
// stream per server, the per-server view the tray and the window's overview show, notifications,
// and the backend of the preload's bridge, whose calls it hands to app-routes.ts (the /desktop/
// routes), server-requests.ts (API calls, log streams) and downloads.ts. electron-main.ts
// injects the real Electron pieces; the tests inject stand-ins for safeStorage, Notification,
// Tray, powerMonitor and the save dialog only.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BridgeResponse, DownloadResult, ServerSummary, StreamMessage, TerminalHandle, TerminalMessage } from '../ipc/contract.js';
import { apiPath } from '../../shared/api-routes.js';
import { UPGRADE_STATES } from '../../shared/statuses.js';
import type { UpgradeRun, UpgradeState } from '../../shared/types.js';
import { answerAppRoute } from './app-routes.js';
import type { BridgeBackend } from './bridge-handlers.js';
import { fetchFor, testServer, type ServerTest } from './connection.js';
import { downloadToFile, type ShowSaveDialog } from './downloads.js';
import { EventStream, type ConnectionState, type EventStreamOptions, type StreamEventMessage } from './event-stream.js';
import { Notifier, type NotificationLike, type NotifierOptions, type OpenTarget } from './notifier.js';
import { SecretStore, WeakBackendError, type SafeStorageLike, type WeakBackendChoice } from './secret-store.js';
import { ServerList, type ServerEntry } from './server-list.js';
import { forwardRequest, openLogStream, openPostStream } from './server-requests.js';
import { openTerminalRelay } from './terminal-relay.js';
import { buildTrayMenu, trayTooltip, worstState, type MenuItem, type OverallState, type ServerView } from './tray-model.js';

/** A finished upgrade read after a reconnect notifies only when it ended this recently. */
const RECENT_UPGRADE_MS = 15 * 60_000;

const NO_KEY: BridgeResponse = { status: 401, body: { error: { code: 'no_key', message: 'no key is stored for this server in the desktop app' } } };

/** The tray as the app drives it (Electron's Tray + Menu behind it); null where the desktop has none. */
export interface TrayView {
  render(state: OverallState, tooltip: string, menu: MenuItem[]): void;
}

interface PowerMonitorLike {
  on(event: 'resume' | 'unlock-screen', listener: () => void): unknown;
}

export interface DesktopAppOptions {
  configDir: string;
  safeStorage: SafeStorageLike;
  platform: NodeJS.Platform;
  createNotification(content: { title: string; body: string }): NotificationLike;
  powerMonitor: PowerMonitorLike;
  tray: TrayView | null;
  /** Shows a console route for a server in the window (creating or focusing it). */
  openInWindow(serverId: string, route: string): void;
  quit(): void;
  /** Electron's dialog.showSaveDialog (on the window): where a download goes; none, no downloads. */
  showSaveDialog?: ShowSaveDialog;
  stream?: Partial<Pick<EventStreamOptions, 'heartbeatMs' | 'backoffBaseMs' | 'backoffMaxMs' | 'random'>>;
  notifier?: Partial<Pick<NotifierOptions, 'offlineDebounceMs' | 'rateLimit'>>;
}

interface Settings {
  weakBackendChoice?: WeakBackendChoice;
}

export class DesktopApp implements BridgeBackend {
  readonly servers: ServerList;
  readonly secrets: SecretStore;
  readonly notifier: Notifier;
  readonly streams = new Map<string, EventStream>();
  private readonly views = new Map<string, ServerView>();
  private readonly listeners = new Map<string, Set<(m: StreamMessage) => void>>();
  private readonly settingsFile: string;
  private settings: Settings = {};
  private started = false;

  constructor(private readonly o: DesktopAppOptions) {
    mkdirSync(o.configDir, { recursive: true });
    this.settingsFile = join(o.configDir, 'settings.json');
    if (existsSync(this.settingsFile)) {
      try {
        this.settings = JSON.parse(readFileSync(this.settingsFile, 'utf8')) as Settings;
      } catch {
        this.settings = {};
      }
    }
    this.servers = new ServerList(join(o.configDir, 'servers.json'));
    this.secrets = new SecretStore({ file: join(o.configDir, 'keys.json'), safeStorage: o.safeStorage, platform: o.platform, choice: this.settings.weakBackendChoice ?? null });
    this.notifier = new Notifier({
      create: o.createNotification,
      open: (t) => this.openTarget(t),
      serverName: (id) => this.servers.get(id)?.name ?? 'a server',
      isMuted: (id) => this.servers.get(id)?.muted ?? false,
      ...o.notifier,
    });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const s of this.servers.list()) this.startStream(s);
    const resume = () => this.reconnectAll();
    this.o.powerMonitor.on('resume', resume);
    this.o.powerMonitor.on('unlock-screen', resume);
    this.renderTray();
  }

  stop(): void {
    for (const s of this.streams.values()) s.stop();
    this.streams.clear();
    this.notifier.dispose();
    this.started = false;
  }

  reconnectAll(): void {
    for (const s of this.streams.values()) s.reconnectNow();
  }

  /** What the user answered to the weak-keychain question. */
  chooseWeakBackend(choice: WeakBackendChoice): void {
    this.secrets.choose(choice);
    this.settings.weakBackendChoice = choice;
    writeFileSync(this.settingsFile, JSON.stringify(this.settings, null, 2) + '\n');
  }

  /** Tests the server and key, then stores both (the key refused by a weak keychain throws WeakBackendError, storing nothing). */
  async addServer(input: { name?: string; url: string; key: string; fingerprint?: string; colour?: string }): Promise<{ server: ServerEntry; test: ServerTest }> {
    if (this.secrets.status().mode === 'refused') throw new WeakBackendError(this.secrets.backend());
    const server = this.servers.add(input);
    try {
      this.secrets.set(server.id, input.key);
    } catch (err) {
      this.servers.remove(server.id);
      throw err;
    }
    const test = await testServer(server, input.key);
    if (this.started) this.startStream(server);
    this.renderTray();
    return { server, test };
  }

  async test(serverId: string): Promise<ServerTest> {
    const s = this.servers.get(serverId);
    const key = this.secrets.get(serverId);
    if (!s) return { ok: false, error: 'no such server' };
    if (!key) return { ok: false, error: 'no key stored for this server' };
    return testServer(s, key);
  }

  update(serverId: string, patch: { name?: string; colour?: string; muted?: boolean; fingerprint?: string }): ServerEntry {
    const before = this.servers.get(serverId);
    const s = this.servers.update(serverId, patch);
    // the event stream connects with the pin it started with: a new pin starts it again
    if (before?.fingerprint !== s.fingerprint && this.streams.has(serverId)) {
      this.streams.get(serverId)!.stop();
      this.streams.delete(serverId);
      this.startStream(s);
    }
    const v = this.views.get(serverId);
    if (v) Object.assign(v, { name: s.name, colour: s.colour, muted: s.muted });
    this.renderTray();
    return s;
  }

  remove(serverId: string): void {
    this.streams.get(serverId)?.stop();
    this.streams.delete(serverId);
    this.views.delete(serverId);
    for (const l of this.listeners.get(serverId) ?? []) l({ type: 'state', state: 'closed' });
    this.listeners.delete(serverId);
    this.secrets.delete(serverId);
    this.servers.remove(serverId);
    this.renderTray();
  }

  summaries(): ServerSummary[] {
    return this.servers.list().map((s) => {
      const v = this.views.get(s.id) ?? this.newView(s);
      const ids = (status: string) =>
        Object.entries(v.services)
          .filter(([, st]) => st === status)
          .map(([id]) => id);
      return {
        id: s.id,
        name: s.name,
        url: s.url,
        colour: s.colour,
        muted: s.muted,
        pinned: Boolean(s.fingerprint),
        hasKey: this.secrets.get(s.id) !== undefined,
        connection: v.connection,
        state: worstState([v]),
        failed: ids('failed'),
        building: ids('building'),
        ...(v.lastFailed ? { lastFailed: v.lastFailed } : {}),
      };
    });
  }

  // BridgeBackend

  /** The app's own /desktop/ routes (app-routes.ts). */
  local(method: string, path: string, body: unknown): Promise<BridgeResponse> {
    return answerAppRoute(this, method, path, body);
  }

  hasServer(serverId: string): boolean {
    return this.servers.get(serverId) !== undefined;
  }

  serverSummaries(): ServerSummary[] {
    return this.summaries();
  }

  async forward(serverId: string, method: string, path: string, body: unknown): Promise<BridgeResponse> {
    const key = this.secrets.get(serverId);
    if (!key) return NO_KEY;
    return forwardRequest(this.servers.get(serverId)!, key, method, path, body);
  }

  async download(serverId: string, path: string, suggestedName: string): Promise<DownloadResult> {
    const s = this.servers.get(serverId)!;
    const key = this.secrets.get(serverId);
    if (!key) return { saved: false, failure: NO_KEY };
    if (!this.o.showSaveDialog) throw new Error('this desktop app has no save dialog');
    return downloadToFile({ url: `${s.url}${path}`, key, fetch: fetchFor(s), suggestedName, serverName: s.name, showSaveDialog: this.o.showSaveDialog });
  }

  open(serverId: string, stream: string, deliver: (m: StreamMessage) => void): () => void {
    return stream === '/api/events' ? this.joinEvents(serverId, deliver) : openLogStream(this.servers.get(serverId)!, this.secrets.get(serverId), stream, deliver);
  }

  postStream(serverId: string, path: string, body: unknown, deliver: (m: StreamMessage) => void): () => void {
    return openPostStream(this.servers.get(serverId)!, this.secrets.get(serverId), path, body, deliver);
  }

  terminal(serverId: string, path: string, deliver: (m: TerminalMessage) => void): TerminalHandle {
    const s = this.servers.get(serverId)!;
    const key = this.secrets.get(serverId);
    if (!key) {
      queueMicrotask(() => deliver({ type: 'closed', code: 4401, reason: 'no key is stored for this server in the desktop app' }));
      return { input: () => undefined, resize: () => undefined, close: () => undefined };
    }
    return openTerminalRelay({ url: s.url, fingerprint: s.fingerprint, key, path }, deliver);
  }

  /** A notification or tray item was clicked: show that deployment's log (or the backups, the nodes, or the server). */
  openTarget(t: OpenTarget): void {
    if (t.kind === 'deployment') this.o.openInWindow(t.serverId, `/services/${encodeURIComponent(t.serviceId)}?d=${encodeURIComponent(t.deploymentId)}`);
    else if (t.kind === 'backup') this.o.openInWindow(t.serverId, `/services/${encodeURIComponent(t.serviceId)}/backups`);
    else if (t.kind === 'job') this.o.openInWindow(t.serverId, `/services/${encodeURIComponent(t.serviceId)}/jobs?job=${encodeURIComponent(t.jobId)}`);
    else if (t.kind === 'uptime') this.o.openInWindow(t.serverId, `/services/${encodeURIComponent(t.serviceId)}/uptime`);
    else if (t.kind === 'metrics') this.o.openInWindow(t.serverId, t.serviceId ? `/services/${encodeURIComponent(t.serviceId)}/metrics` : '/server');
    else if (t.kind === 'nodes') this.o.openInWindow(t.serverId, '/nodes');
    else if (t.kind === 'settings') this.o.openInWindow(t.serverId, '/settings');
    else this.o.openInWindow(t.serverId, '/');
  }

  private joinEvents(serverId: string, deliver: (m: StreamMessage) => void): () => void {
    let set = this.listeners.get(serverId);
    if (!set) this.listeners.set(serverId, (set = new Set()));
    set.add(deliver);
    deliver({ type: 'state', state: this.views.get(serverId)?.connection.status === 'online' ? 'open' : 'reconnecting' });
    return () => set.delete(deliver);
  }

  private newView(s: ServerEntry): ServerView {
    return { id: s.id, name: s.name, colour: s.colour, muted: s.muted, connection: { status: 'connecting' }, services: {} };
  }

  private startStream(s: ServerEntry): void {
    if (this.streams.has(s.id)) return;
    const view = this.newView(s);
    this.views.set(s.id, view);
    const stream = new EventStream({
      url: s.url,
      key: () => this.secrets.get(s.id),
      fetch: fetchFor(s),
      onEvent: (e) => this.onEvent(s.id, e),
      onState: (st) => this.onState(s.id, st),
      ...this.o.stream,
    });
    this.streams.set(s.id, stream);
    stream.start();
  }

  private onEvent(serverId: string, e: StreamEventMessage): void {
    const v = this.views.get(serverId);
    if (!v) return;
    const d = (e.data ?? {}) as Record<string, unknown>;
    let changed = false;
    if (e.event === 'service' && typeof d.serviceId === 'string' && typeof d.status === 'string') {
      changed = v.services[d.serviceId] !== d.status;
      v.services[d.serviceId] = d.status;
    } else if (e.event === 'deployment' && d.status === 'failed' && typeof d.deploymentId === 'string') {
      v.lastFailed = { deploymentId: d.deploymentId, serviceId: String(d.serviceId ?? ''), at: typeof d.at === 'string' ? d.at : new Date().toISOString() };
      changed = true;
    } else if (e.event === 'reset') {
      v.services = {}; // the history was lost: the window reloads what it shows, the tray waits for new events
      changed = true;
      // a daemon that restarted (an upgrade's switch, or its switch back) announced the run before this app reconnected
      void this.readUpgrade(serverId);
    }
    this.notifier.onEvent(serverId, e);
    for (const l of this.listeners.get(serverId) ?? []) l({ type: 'event', event: e });
    if (changed) this.renderTray();
  }

  /** A recently finished upgrade that rolled back or failed notifies (once per run); a key that cannot read it, or an older daemon, says nothing. */
  private async readUpgrade(serverId: string): Promise<void> {
    const s = this.servers.get(serverId);
    const key = this.secrets.get(serverId);
    if (!s || !key) return;
    try {
      const res = await fetchFor(s)(`${s.url}${apiPath('system.upgrade')}`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
      if (!res.ok) return;
      const run = ((await res.json()) as { upgrade?: { run?: Partial<UpgradeRun> | null } }).upgrade?.run;
      if (!run || typeof run.id !== 'string' || !(UPGRADE_STATES as unknown[]).includes(run.state) || typeof run.finishedAt !== 'string') return;
      if (Date.now() - Date.parse(run.finishedAt) > RECENT_UPGRADE_MS) return;
      this.notifier.onUpgradeRun(serverId, {
        id: run.id,
        state: run.state as UpgradeState,
        fromVersion: typeof run.fromVersion === 'string' ? run.fromVersion : null,
        message: typeof run.message === 'string' ? run.message : null,
      });
    } catch {
      // the stream's own state says when the server is unreachable
    }
  }

  private onState(serverId: string, st: ConnectionState): void {
    const v = this.views.get(serverId);
    if (!v) return;
    const was = v.connection.status;
    v.connection = st;
    this.notifier.onState(serverId, st);
    if (was !== st.status) {
      for (const l of this.listeners.get(serverId) ?? []) l({ type: 'state', state: st.status === 'online' ? 'open' : 'reconnecting' });
    }
    this.renderTray();
  }

  private renderTray(): void {
    if (!this.o.tray) return;
    const views = this.servers.list().map((s) => this.views.get(s.id) ?? this.newView(s));
    this.o.tray.render(
      worstState(views),
      trayTooltip(views),
      buildTrayMenu(views, {
        openWindow: () => this.o.openInWindow(views[0]?.id ?? '', '/'),
        openServer: (id) => this.o.openInWindow(id, '/'),
        openDeployment: (id, serviceId, deploymentId) => this.openTarget({ serverId: id, kind: 'deployment', serviceId, deploymentId }),
        setMuted: (id, muted) => this.update(id, { muted }),
        quit: () => this.o.quit(),
      }),
    );
  }
}
