// The data plane: Caddy driven through its admin API. Every apply generates the whole config from
// the store and POSTs it to /load, which Caddy applies atomically (a refused config leaves the
// previous one in force) and autosaves, so a restarted Caddy (`caddy run --resume`) carries on
// with Berth's routes before the daemon is back. When Caddy cannot be reached the store is still
// the truth: a timer retries until Caddy is back. At start-up and on a timer the daemon compares
// what Caddy runs (GET /config/) with what it would load, and loads only when they differ.
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ProxyResult } from '../../shared/types.js';
import type { ProxyPort } from '../core/ports/proxy.js';
import type { Store } from '../core/ports/store.js';
import { adminRequest } from './admin-http.js';
import { firstAddressInUse, listenAddresses } from './listen-check.js';
import { caddyConfig, withApiTlsListener } from './caddy-config.js';
import { PageFiles } from './page-files.js';
import { readHttpsMode, routingFromStore } from './routing.js';

export interface CaddyProxyOptions {
  store: Store;
  /** BERTH_CADDY_ADMIN, e.g. http://127.0.0.1:2019 */
  adminUrl: string;
  httpAddr: string;
  httpsAddr: string;
  /** BERTH_API_TLS_ADDR: Caddy serves the API over HTTPS there, certified for `subject()` (the server's address). */
  apiTls?: { addr: string; subject: () => Promise<string> } | null;
  log: (message: string, err?: unknown) => void;
  /**
   * Changes whenever the stored data may have changed (the read cache's version). With it, a check
   * that finds Caddy's configuration text as it was at the last check that matched, and the store
   * unchanged, needs neither to build the desired configuration nor to parse Caddy's.
   */
  storeVersion?: () => string;
  /** Swarm-backed services' answering tasks by service id (swarm/task-pools.ts); none on a single server. */
  pools?: () => ReadonlyMap<string, readonly string[]>;
  /** Where status pages are written for Caddy to serve (BERTH_STATUS_PAGES_DIR, proxy/page-files.ts). */
  pagesDir: string;
  retryMs?: number;
  timeoutMs?: number;
}

/** How a load ended, beyond what the API reports. */
type LoadState = 'loaded' | 'unchanged' | 'refused' | 'unreachable' | 'failed';
export interface LoadOutcome {
  result: ProxyResult;
  state: LoadState;
}

/** How long a check leaves a configuration Caddy refused alone (an address freed meanwhile is retried then). */
const REFUSED_RETRY_MS = 5 * 60_000;
/**
 * A check compares in full at least this often even when nothing it can see changed (the API
 * listener's certificate subject, the server's address, is read outside the store).
 */
const FULL_CHECK_MS = 5 * 60_000;

const unchanged = (): LoadOutcome => ({ state: 'unchanged', result: { ok: true, detail: 'Caddy already runs this configuration' } });

export class CaddyProxy implements ProxyPort {
  private queue: Promise<unknown> = Promise.resolve();
  private next: Promise<LoadOutcome> | null = null;
  private nextForces = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private watchTimer: NodeJS.Timeout | null = null;
  private dashboardUpstream: string | null = null;
  private ahead = new Map<string, number>();
  private stopped = false;
  private warnedUnreachable = false;
  /**
   * The configuration Caddy last refused, and when. A check (the watch, start-up) does not load it
   * again until the store changes it or REFUSED_RETRY_MS pass: Caddy stops and restarts its servers
   * for every load it then rolls back, so re-sending a refused config every 15 s made the servers
   * flap, briefly answering with the refused routes.
   */
  private lastRefused: { json: string; at: number } | null = null;
  /** The addresses Caddy's HTTP servers listen on now, as last loaded or read; null when unknown. */
  private held: Set<string> | null = null;
  /**
   * The digest of Caddy's own text of its configuration when a check last found it equal to the
   * desired one, with the inputs as they were then. With 10,000 services a full check (parse
   * Caddy's config, build the desired one, compare them deeply) costs about 0.4 s of CPU and 40 MB
   * of transient memory, every 15 s; a check that finds both sides as they were costs a GET and a
   * SHA-1 of the text (about 10 ms for its 9.6 MB). The digest, not the text: the text would stay
   * resident between checks.
   */
  private confirmed: { digest: string; inputs: string; at: number } | null = null;
  private readonly retryMs: number;
  private readonly timeoutMs: number;
  private readonly pages: PageFiles;

  constructor(private o: CaddyProxyOptions) {
    this.pages = new PageFiles(o.pagesDir);
    this.retryMs = o.retryMs ?? 3000;
    this.timeoutMs = o.timeoutMs ?? 15_000;
  }

  /** Where the daemon's own API listens, once it does (for the dashboard hostname). */
  setDashboardUpstream(upstream: string | null): void {
    this.dashboardUpstream = upstream;
  }

  /** Loads the configuration the store describes (the API's `proxy` result). */
  async apply(): Promise<ProxyResult> {
    return (await this.run(true)).result;
  }

  /** Loads only when what Caddy runs differs from what the store describes (start-up, watch). */
  sync(): Promise<LoadOutcome> {
    return this.run(false);
  }

  /**
   * Routes a service's host port and hostnames to a new container before the store records it
   * live; `settle` ends the override once it does (or the new container is dropped).
   */
  routeAhead(serviceId: string, upstreamPort: number): Promise<LoadOutcome> {
    this.ahead.set(serviceId, upstreamPort);
    return this.run(true);
  }

  settle(serviceId: string, upstreamPort: number): void {
    if (this.ahead.get(serviceId) === upstreamPort) this.ahead.delete(serviceId);
  }

  /** One load at a time; callers arriving while one waits to start share it (it reads the latest store). */
  private run(force: boolean): Promise<LoadOutcome> {
    if (this.next) {
      if (force) this.nextForces = true;
      return this.next;
    }
    this.nextForces = force;
    const run: Promise<LoadOutcome> = this.queue.then(() => {
      if (this.next === run) this.next = null;
      return this.load(this.nextForces);
    });
    this.next = run;
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Notices a Caddy whose configuration is not Berth's (restarted empty, or someone loaded another one) and loads it again. */
  watch(intervalMs = 15_000): void {
    this.watchTimer = setInterval(() => {
      if (this.stopped || this.retryTimer) return;
      void this.sync().then((r) => {
        if (r.state === 'loaded') this.o.log(`Caddy did not run Berth's configuration; re-applied: ${r.result.detail}`);
      });
    }, intervalMs);
    this.watchTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.cancelRetry();
    if (this.watchTimer) clearInterval(this.watchTimer);
  }

  private adminListen(): string {
    const url = new URL(this.o.adminUrl);
    return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  }

  /** The configuration the store describes right now. */
  async desired(): Promise<Record<string, unknown>> {
    return (await this.build()).config;
  }

  /** The configuration, and the status page files it names (written now when new). */
  private async build(): Promise<{ config: Record<string, unknown>; pageFiles: Set<string> }> {
    const pools = this.o.pools?.() ?? new Map<string, readonly string[]>();
    const routed = await routingFromStore(this.o.store, this.dashboardUpstream, this.ahead, pools);
    const pageFiles = new Set<string>();
    const routes = routed.routes.map(({ pageHtml, ...r }) => {
      if (pageHtml === undefined) return r;
      const pageFile = this.pages.place(pageHtml);
      pageFiles.add(pageFile);
      return { ...r, pageFile };
    });
    const hostPorts = routed.hostPorts;
    const { httpsMode, acmeEmail } = await readHttpsMode(this.o.store);
    const config = caddyConfig({ routes, hostPorts, pools, httpsMode, acmeEmail, httpAddr: this.o.httpAddr, httpsAddr: this.o.httpsAddr, adminListen: this.adminListen() });
    const apiTls = this.o.apiTls && this.dashboardUpstream ? { addr: this.o.apiTls.addr, upstream: this.dashboardUpstream, subject: await this.o.apiTls.subject() } : null;
    return { config: withApiTlsListener(config, apiTls), pageFiles };
  }

  /** What Caddy runs now, as Caddy writes it; throws when it cannot be read. */
  private async runningText(): Promise<string> {
    const res = await adminRequest(`${this.o.adminUrl}/config/`, 'GET', this.timeoutMs);
    if (res.status < 200 || res.status > 299) throw new Error(`GET /config/ answered ${res.status}`);
    return res.text;
  }

  /** Everything the desired configuration is built from that can be fingerprinted cheaply; null without a store version. */
  private inputs(): string | null {
    const version = this.o.storeVersion?.();
    if (version === undefined) return null;
    const pools = [...(this.o.pools?.() ?? [])];
    return JSON.stringify(pools.length > 0 ? [version, this.dashboardUpstream, [...this.ahead], pools] : [version, this.dashboardUpstream, [...this.ahead]]);
  }

  /** Caddy's text and the inputs are both as they were at the last check that matched, not long ago. */
  private stillConfirmed(text: string): boolean {
    const c = this.confirmed;
    return c !== null && c.inputs === this.inputs() && Date.now() - c.at < FULL_CHECK_MS && c.digest === digestOf(text);
  }

  private async load(force: boolean): Promise<LoadOutcome> {
    // A check reads what Caddy runs first: while Caddy is down (a retry every few seconds) the
    // whole configuration is not built for nothing.
    // A load also needs the addresses Caddy holds (listen-check.ts); a forced one reads them once.
    let running: unknown;
    let runningText = '';
    let held = this.held;
    if (!force || held === null) {
      try {
        runningText = await this.runningText();
        if (!force && this.stillConfirmed(runningText)) {
          this.reachable();
          return unchanged();
        }
        running = JSON.parse(runningText);
      } catch (err) {
        return this.unreachableOutcome(err);
      }
      held = this.held = new Set(listenAddresses(running));
    }
    // read before the store: a change while the config is built makes the next check a full one
    const inputs = this.inputs();
    let config: Record<string, unknown>;
    let pageFiles: Set<string>;
    try {
      ({ config, pageFiles } = await this.build());
    } catch (err) {
      return { state: 'failed', result: { ok: false, detail: `the proxy configuration could not be generated: ${(err as Error).message}` } };
    }
    try {
      if (!force && isDeepStrictEqual(running, config)) {
        this.reachable();
        this.confirmed = inputs === null ? null : { digest: digestOf(runningText), inputs, at: Date.now() };
        return unchanged();
      }
      this.confirmed = null;
      const json = JSON.stringify(config);
      if (!force && this.lastRefused?.json === json && Date.now() - this.lastRefused.at < REFUSED_RETRY_MS) {
        return { state: 'refused', result: { ok: false, detail: 'Caddy refused this configuration; the previous configuration stays in force until the routing changes' } };
      }
      const addresses = listenAddresses(config);
      const taken = await firstAddressInUse(addresses.filter((a) => !held.has(a)));
      if (taken !== null) {
        return {
          state: 'refused',
          result: { ok: false, detail: `Caddy cannot listen on ${taken}: address already in use by another program; the configuration was not sent, and the previous configuration stays in force` },
        };
      }
      const res = await adminRequest(`${this.o.adminUrl}/load`, 'POST', this.timeoutMs, json);
      const text = res.text;
      this.reachable();
      if (res.status >= 200 && res.status <= 299) {
        this.held = new Set(addresses);
        this.lastRefused = null;
        this.pages.prune(pageFiles); // what the previous configuration named and this one does not
        return { state: 'loaded', result: { ok: true, detail: `Caddy loaded the configuration (${res.status} ${res.statusText || 'OK'})` } };
      }
      this.lastRefused = { json, at: Date.now() };
      return { state: 'refused', result: { ok: false, detail: `Caddy refused the configuration (${res.status}); the previous configuration stays in force: ${caddyError(text)}` } };
    } catch (err) {
      return this.unreachableOutcome(err);
    }
  }

  private unreachableOutcome(err: unknown): LoadOutcome {
    this.held = null; // a Caddy that comes back may have restarted empty
    this.confirmed = null;
    this.unreachable(err);
    return {
      state: 'unreachable',
      result: { ok: false, detail: `Caddy is not reachable at ${this.o.adminUrl}: ${reason(err)}; the change is saved and will be applied when it is back` },
    };
  }

  private unreachable(err: unknown): void {
    if (!this.warnedUnreachable) {
      this.warnedUnreachable = true;
      // Loud on purpose: without Caddy no host port and no domain answers (there is no fallback).
      this.o.log(
        `ERROR: Caddy is not reachable at ${this.o.adminUrl} (${reason(err)}): no app's host port or domain answers until it runs. ` +
          'Start it with `caddy run --resume` (installers/ensure-caddy.sh); Berth retries every few seconds.',
      );
    }
    this.scheduleRetry();
  }

  private reachable(): void {
    if (this.warnedUnreachable) this.o.log(`Caddy answers again at ${this.o.adminUrl}`);
    this.warnedUnreachable = false;
    this.cancelRetry();
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.stopped) return;
      void this.sync().then((r) => {
        if (r.state === 'loaded' || r.state === 'unchanged') this.o.log(`Caddy is reachable again; routing checked: ${r.result.detail}`);
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
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'no answer in time';
  return e?.code ?? e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

/** A fingerprint of Caddy's configuration text (a change by anyone makes another one). */
function digestOf(text: string): string {
  return createHash('sha1').update(text).digest('base64');
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
