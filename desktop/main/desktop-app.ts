// The desktop app's main process without Electron: the server list, the keys, one event stream
// per server, the per-server view the tray and the window's overview show, notifications, and
// the backend of the preload's bridge. electron-main.ts injects the real Electron pieces; the
// tests inject stand-ins for safeStorage, Notification, Tray and powerMonitor only.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSse } from '../../shared/sse.js';
import type { BridgeBackend, BridgeResponse, StreamMessage } from './bridge-handlers.js';
import { connectionError, fetchFor, testServer, type ServerTest } from './connection.js';
import { EventStream, type ConnectionState, type EventStreamOptions, type StreamEventMessage } from './event-stream.js';
import { Notifier, type NotificationLike, type NotifierOptions, type OpenTarget } from './notifier.js';
import { SecretStore, WEAK_BACKEND_CHOICES, WeakBackendError, type SafeStorageLike, type WeakBackendChoice } from './secret-store.js';
import { ServerList, ServerListError, type ServerEntry } from './server-list.js';
import { buildTrayMenu, trayTooltip, worstState, type MenuItem, type OverallState, type ServerView } from './tray-model.js';

/** The tray as the app drives it (Electron's Tray + Menu behind it); null where the desktop has none. */
export interface TrayView {
  render(state: OverallState, tooltip: string, menu: MenuItem[]): void;
}

export interface PowerMonitorLike {
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
  stream?: Partial<Pick<EventStreamOptions, 'heartbeatMs' | 'backoffBaseMs' | 'backoffMaxMs' | 'random'>>;
  notifier?: Partial<Pick<NotifierOptions, 'offlineDebounceMs' | 'rateLimit'>>;
}

interface Settings {
  weakBackendChoice?: WeakBackendChoice;
}

export interface ServerSummary {
  id: string;
  name: string;
  url: string;
  colour: string;
  muted: boolean;
  pinned: boolean;
  hasKey: boolean;
  connection: ConnectionState;
  state: OverallState;
  failed: string[];
  building: string[];
  lastFailed?: ServerView['lastFailed'];
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

  update(serverId: string, patch: { name?: string; colour?: string; muted?: boolean }): ServerEntry {
    const s = this.servers.update(serverId, patch);
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
      const ids = (status: string) => Object.entries(v.services).filter(([, st]) => st === status).map(([id]) => id);
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

  /**
   * The window's server management, answered by the main process: `GET /desktop/servers`,
   * `POST /desktop/servers` {name, url, key, fingerprint}, `PATCH|DELETE /desktop/servers/:id`,
   * `POST /desktop/servers/:id/test`, `POST /desktop/servers/:id/key` {key}, `POST /desktop/keychain` {choice}. A key only ever travels
   * from the window to the main process, never back.
   */
  async local(method: string, path: string, body: unknown): Promise<BridgeResponse> {
    const b = (body ?? {}) as Record<string, unknown>;
    const str = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : undefined);
    const bad = (status: number, code: string, message: string): BridgeResponse => ({ status, body: { error: { code, message } } });
    const parts = path.split('/').slice(2); // ['servers', id?, 'test'?]
    try {
      if (parts[0] === 'keychain' && parts.length === 1 && method === 'POST') {
        const choice = str('choice');
        if (choice !== 'plain-file' && choice !== 'ask-each-launch') return bad(400, 'invalid_input', 'choice is plain-file or ask-each-launch');
        this.chooseWeakBackend(choice);
        return { status: 200, body: { keys: this.secrets.status() } };
      }
      if (parts[0] !== 'servers') return bad(404, 'not_found', 'no such route');
      if (parts.length === 1 && method === 'GET') return { status: 200, body: { servers: this.summaries(), keys: this.secrets.status(), choices: WEAK_BACKEND_CHOICES } };
      if (parts.length === 1 && method === 'POST') {
        const url = str('url');
        const key = str('key');
        if (!url || !key) return bad(400, 'invalid_input', 'a server needs a URL and an API key');
        const fingerprint = str('fingerprint');
        const name = str('name');
        const { server, test } = await this.addServer({ url, key, ...(name ? { name } : {}), ...(fingerprint ? { fingerprint } : {}) });
        return { status: 201, body: { server: this.summaries().find((s) => s.id === server.id), test } };
      }
      const id = parts[1]!;
      if (!this.servers.get(id)) return bad(404, 'not_found', 'no such server');
      if (parts.length === 3 && parts[2] === 'test' && method === 'POST') return { status: 200, body: { test: await this.test(id) } };
      if (parts.length === 3 && parts[2] === 'key' && method === 'POST') {
        // a key typed again (after "ask each launch", or a new key for the server)
        const key = str('key');
        if (!key) return bad(400, 'invalid_input', 'an API key is required');
        this.secrets.set(id, key);
        this.streams.get(id)?.reconnectNow();
        return { status: 200, body: { test: await this.test(id) } };
      }
      if (parts.length === 2 && method === 'PATCH') {
        const patch = { ...(str('name') !== undefined ? { name: str('name')! } : {}), ...(str('colour') !== undefined ? { colour: str('colour')! } : {}), ...(typeof b.muted === 'boolean' ? { muted: b.muted } : {}) };
        this.update(id, patch);
        return { status: 200, body: { server: this.summaries().find((s) => s.id === id) } };
      }
      if (parts.length === 2 && method === 'DELETE') {
        this.remove(id);
        return { status: 200, body: { ok: true } };
      }
      return bad(404, 'not_found', 'no such route');
    } catch (err) {
      if (err instanceof WeakBackendError) return { status: 409, body: { error: { code: 'weak_keychain', message: err.message, choices: err.choices } } };
      if (err instanceof ServerListError || (err instanceof Error && /fingerprint/.test(err.message))) return bad(400, 'invalid_input', err.message);
      throw err;
    }
  }

  hasServer(serverId: string): boolean {
    return this.servers.get(serverId) !== undefined;
  }

  serverSummaries(): unknown[] {
    return this.summaries();
  }

  async forward(serverId: string, method: string, path: string, body: unknown): Promise<BridgeResponse> {
    const s = this.servers.get(serverId)!;
    const key = this.secrets.get(serverId);
    if (!key) return { status: 401, body: { error: { code: 'no_key', message: 'no key is stored for this server in the desktop app' } } };
    try {
      const res = await fetchFor(s)(`${s.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let parsed: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
      return { status: res.status, body: parsed };
    } catch (err) {
      return { status: 0, body: { error: { code: 'unreachable', message: `${s.name} cannot be reached: ${connectionError(err)}` } } };
    }
  }

  open(serverId: string, stream: string, deliver: (m: StreamMessage) => void): () => void {
    return stream === '/api/events' ? this.joinEvents(serverId, deliver) : this.openStream(serverId, stream, deliver);
  }

  /** A notification or tray item was clicked: show that deployment's log (or the backups, or the server). */
  openTarget(t: OpenTarget): void {
    if (t.kind === 'deployment') this.o.openInWindow(t.serverId, `/services/${encodeURIComponent(t.serviceId)}?d=${encodeURIComponent(t.deploymentId)}`);
    else if (t.kind === 'backup') this.o.openInWindow(t.serverId, `/services/${encodeURIComponent(t.serviceId)}/backups`);
    else this.o.openInWindow(t.serverId, '/');
  }

  private joinEvents(serverId: string, deliver: (m: StreamMessage) => void): () => void {
    let set = this.listeners.get(serverId);
    if (!set) this.listeners.set(serverId, (set = new Set()));
    set.add(deliver);
    deliver({ type: 'state', state: this.views.get(serverId)?.connection.status === 'online' ? 'open' : 'reconnecting' });
    return () => set.delete(deliver);
  }

  /** A log stream: its own connection, closed by the caller or after `end`. */
  private openStream(serverId: string, stream: string, deliver: (m: StreamMessage) => void): () => void {
    const s = this.servers.get(serverId)!;
    const key = this.secrets.get(serverId);
    const controller = new AbortController();
    void (async () => {
      try {
        const res = await fetchFor(s)(`${s.url}${stream}`, { headers: { authorization: `Bearer ${key ?? ''}`, accept: 'text/event-stream' }, signal: controller.signal });
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        deliver({ type: 'state', state: 'open' });
        for await (const e of readSse(res.body as ReadableStream<Uint8Array>)) {
          let data: unknown = e.data;
          try {
            data = JSON.parse(e.data);
          } catch {
            // text
          }
          deliver({ type: 'event', event: { event: e.event, data, ...(e.id !== undefined ? { id: e.id } : {}) } });
        }
      } catch {
        // aborted or failed: reported as closed below
      }
      if (!controller.signal.aborted) deliver({ type: 'state', state: 'closed' });
    })();
    return () => controller.abort();
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
    }
    this.notifier.onEvent(serverId, e);
    for (const l of this.listeners.get(serverId) ?? []) l({ type: 'event', event: e });
    if (changed) this.renderTray();
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
    this.o.tray.render(worstState(views), trayTooltip(views), buildTrayMenu(views, {
      openWindow: () => this.o.openInWindow(views[0]?.id ?? '', '/'),
      openServer: (id) => this.o.openInWindow(id, '/'),
      openDeployment: (id, serviceId, deploymentId) => this.openTarget({ serverId: id, kind: 'deployment', serviceId, deploymentId }),
      setMuted: (id, muted) => this.update(id, { muted }),
      quit: () => this.o.quit(),
    }));
  }
}
