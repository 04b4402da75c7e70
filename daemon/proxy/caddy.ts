// The reverse proxy: Caddy driven through its admin API. Every apply generates the whole config from
// the store and POSTs it to /load, which Caddy applies atomically (a refused config leaves the
// previous one in force). When Caddy cannot be reached the store is still the truth: a timer retries
// until Caddy is back, and the daemon applies once at start-up.
import type { ProxyResult } from '../../shared/types.js';
import type { ProxyPort } from '../core/proxy.js';
import type { Store } from '../core/store.js';
import { CADDY_SERVER_NAME, caddyConfig, withApiTlsListener, type HttpsMode, type ProxyRoute } from './caddy-config.js';

export interface CaddyProxyOptions {
  store: Store;
  /** BERTH_CADDY_ADMIN, e.g. http://127.0.0.1:2019 */
  adminUrl: string;
  httpAddr: string;
  httpsAddr: string;
  /** BERTH_API_TLS_ADDR: Caddy serves the API over HTTPS there, certified for `subject()` (the server's address). */
  apiTls?: { addr: string; subject: () => Promise<string> } | null;
  log: (message: string, err?: unknown) => void;
  retryMs?: number;
  timeoutMs?: number;
}

export async function readHttpsMode(store: Store): Promise<{ httpsMode: HttpsMode; acmeEmail: string | null }> {
  const acmeEmail = (await store.settings.get('acmeEmail'))?.trim() || null;
  const raw = (await store.settings.get('httpsMode'))?.trim();
  const httpsMode: HttpsMode = raw === 'acme' || raw === 'internal' || raw === 'http' ? raw : acmeEmail ? 'acme' : 'internal';
  return { httpsMode, acmeEmail };
}

/** Every hostname Berth routes, each to a host port on this machine; the first claim of a hostname wins. */
export async function routesFromStore(store: Store, dashboardUpstream: string | null): Promise<ProxyRoute[]> {
  const routes: ProxyRoute[] = [];
  const taken = new Set<string>();
  const add = (hostname: string, upstream: string) => {
    const h = hostname.toLowerCase();
    if (taken.has(h)) return;
    taken.add(h);
    routes.push({ hostname: h, upstream });
  };
  const dashboardHostname = (await store.settings.get('dashboardHostname'))?.trim();
  if (dashboardHostname && dashboardUpstream) add(dashboardHostname, dashboardUpstream);

  const services = (await store.services.list()).filter((s) => s.hostPort !== null && s.runtimeMode !== 'worker' && s.kind !== 'database');
  const byId = new Map(services.map((s) => [s.id, s]));
  const domains = [...(await store.domains.listAll())].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.hostname.localeCompare(b.hostname));
  for (const d of domains) {
    const s = byId.get(d.serviceId);
    if (s) add(d.hostname, `127.0.0.1:${s.hostPort}`);
  }
  const rootDomain = (await store.settings.get('rootDomain'))?.trim().replace(/^\.+|\.+$/g, '');
  if (rootDomain) {
    const ordered = [...services].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    for (const s of ordered) add(`${s.slug}.${rootDomain}`, `127.0.0.1:${s.hostPort}`);
  }
  return routes;
}

export class CaddyProxy implements ProxyPort {
  private queue: Promise<unknown> = Promise.resolve();
  private next: Promise<ProxyResult> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private dashboardUpstream: string | null = null;
  private stopped = false;
  private readonly retryMs: number;
  private readonly timeoutMs: number;

  constructor(private o: CaddyProxyOptions) {
    this.retryMs = o.retryMs ?? 3000;
    this.timeoutMs = o.timeoutMs ?? 15_000;
  }

  /** Where the daemon's own API listens, once it does (for the dashboard hostname). */
  setDashboardUpstream(upstream: string | null): void {
    this.dashboardUpstream = upstream;
  }

  /** One load at a time; callers arriving while one waits to start share it (it reads the latest store). */
  apply(): Promise<ProxyResult> {
    if (this.next) return this.next;
    const run: Promise<ProxyResult> = this.queue.then(() => {
      if (this.next === run) this.next = null;
      return this.load();
    });
    this.next = run;
    this.queue = run.catch(() => undefined);
    return run;
  }

  private watchTimer: NodeJS.Timeout | null = null;

  /**
   * Notices a Caddy that lost Berth's configuration (it restarted, or someone loaded another one)
   * and loads it again: every interval, Caddy is asked whether Berth's server is still there.
   */
  watch(intervalMs = 15_000): void {
    this.watchTimer = setInterval(() => {
      void fetch(`${this.o.adminUrl}/config/apps/http/servers/${CADDY_SERVER_NAME}`, { signal: AbortSignal.timeout(5000) })
        .then(async (res) => {
          const body = res.ok ? ((await res.json()) as unknown) : null;
          if (body === null && !this.stopped && !this.retryTimer) {
            const r = await this.apply();
            if (r.ok) this.o.log(`Caddy had lost Berth's configuration; re-applied: ${r.detail}`);
          }
        })
        .catch(() => undefined); // unreachable: the next change or the retry timer handles it
    }, intervalMs);
    this.watchTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.watchTimer) clearInterval(this.watchTimer);
  }

  private adminListen(): string {
    const url = new URL(this.o.adminUrl);
    return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  }

  private async load(): Promise<ProxyResult> {
    let body: string;
    try {
      const routes = await routesFromStore(this.o.store, this.dashboardUpstream);
      const { httpsMode, acmeEmail } = await readHttpsMode(this.o.store);
      const config = caddyConfig({ routes, httpsMode, acmeEmail, httpAddr: this.o.httpAddr, httpsAddr: this.o.httpsAddr, adminListen: this.adminListen() });
      const apiTls = this.o.apiTls && this.dashboardUpstream ? { addr: this.o.apiTls.addr, upstream: this.dashboardUpstream, subject: await this.o.apiTls.subject() } : null;
      body = JSON.stringify(withApiTlsListener(config, apiTls));
    } catch (err) {
      return { ok: false, detail: `the proxy configuration could not be generated: ${(err as Error).message}` };
    }
    const url = `${this.o.adminUrl}/load`;
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      this.scheduleRetry();
      return { ok: false, detail: `Caddy is not reachable at ${this.o.adminUrl}: ${reason(err)}; the change is saved and will be applied when it is back` };
    }
    const text = await res.text().catch(() => '');
    this.cancelRetry();
    if (res.ok) return { ok: true, detail: `Caddy loaded the configuration (${res.status} ${res.statusText || 'OK'})` };
    return { ok: false, detail: `Caddy refused the configuration (${res.status}); the previous configuration stays in force: ${caddyError(text)}` };
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.stopped) return;
      void this.apply().then((r) => {
        if (r.ok) this.o.log(`Caddy is reachable again; routing re-applied: ${r.detail}`);
      });
    }, this.retryMs);
    this.retryTimer.unref();
  }

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}

function reason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'no answer in time';
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

function caddyError(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // not JSON: use the text as it is
  }
  return text.trim().slice(0, 2000) || 'no reason given';
}
