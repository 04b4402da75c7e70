// Caddy's whole JSON configuration, generated from what Berth routes. Pure: the same input always
// gives the same config, so a load either replaces everything or (when Caddy refuses it) nothing,
// and comparing it with what Caddy runs says whether a load is needed at all.
// Caddy is the data plane: every route goes straight to a live container's published port, so
// apps keep answering while the daemon is down or restarting.

/** The Caddy server that carries Berth's hostname routes; its absence means Caddy lost the config. */
const CADDY_SERVER_NAME = 'berth';
/** The server on the plain HTTP address in the HTTPS modes (redirects, ACME challenges). */
const CADDY_HTTP_SERVER_NAME = 'berth_http';
/** One server per web service's host port: `berth_port_<hostPort>`. */
const HOST_PORT_SERVER_PREFIX = 'berth_port_';

export type { HttpsMode } from '../../shared/types.js';
import type { HttpsMode } from '../../shared/types.js';

export interface ProxyRoute {
  hostname: string;
  /**
   * Host and port of the live container, e.g. 127.0.0.1:41234, or `pool:<serviceId>` for a
   * Swarm-backed service (its tasks, `CaddyConfigInput.pools`); null when nothing is live (503).
   */
  upstream: string | null;
  /** The service the hostname belongs to (none for the dashboard). */
  serviceId?: string;
  /** The file of a static HTML page Caddy answers itself (a project's status page, proxy/page-files.ts); `upstream` is then null. */
  pageFile?: string;
}

export interface HostPortRoute {
  hostPort: number;
  /** 127.0.0.1, or 0.0.0.0 for all addresses. */
  bindHost: string;
  /** Host and port of the live container, or `pool:<serviceId>`. */
  upstream: string;
}

/** The upstream value that names a Swarm service's pool of tasks. */
export const POOL_PREFIX = 'pool:';

export interface CaddyConfigInput {
  routes: readonly ProxyRoute[];
  hostPorts: readonly HostPortRoute[];
  httpsMode: HttpsMode;
  acmeEmail: string | null;
  /** host:port or :port */
  httpAddr: string;
  httpsAddr: string;
  /** The admin endpoint's host:port, kept in every loaded config so a load never locks Berth out. */
  adminListen: string;
  /** Swarm-backed services' answering tasks (`<node address>:<published port>`), by Berth service id; absent on a single server. */
  pools?: ReadonlyMap<string, readonly string[]>;
}

function portOf(addr: string): number {
  return Number(addr.slice(addr.lastIndexOf(':') + 1));
}

const TEXT = { 'Content-Type': ['text/plain; charset=utf-8'] };

const NOT_FOUND_ROUTE = {
  handle: [{ handler: 'static_response', status_code: 404, body: 'no service is routed for this hostname\n', headers: TEXT }],
};

/** A page that may load nothing at all: no script, no image, no frame, only its own inline styles. */
const PAGE_HEADERS = {
  'Content-Security-Policy': ["default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"],
  'X-Content-Type-Options': ['nosniff'],
  'Referrer-Policy': ['no-referrer'],
  'Cache-Control': ['public, max-age=60'],
};

/**
 * A status page is a file Caddy serves as it serves any static file (a static response's body would
 * go through Caddy's placeholder replacer on every request: a third slower for a 20 KB page). Every
 * path of the page's hostname answers the page; the file's name is never shown (it names nothing
 * anyway: it is the page's hash). file_server sets the type from the extension (text/html;
 * charset=utf-8), ETag and Last-Modified, and answers only GET and HEAD.
 */
function pageHandlers(file: string): Record<string, unknown>[] {
  const slash = file.lastIndexOf('/');
  return [
    { handler: 'headers', response: { set: PAGE_HEADERS } },
    { handler: 'rewrite', uri: `/${file.slice(slash + 1)}` },
    { handler: 'file_server', root: file.slice(0, slash) || '/' },
  ];
}

const NOT_LIVE = { handler: 'static_response', status_code: 503, body: 'no running deployment for this service\n', headers: TEXT };

/**
 * Forwards to one upstream. X-Forwarded-For keeps what came in and appends the client's address
 * (every source is "trusted" for that header only); X-Forwarded-Proto and -Host are always set from
 * what Caddy itself saw, never taken from the client. A status Go cannot write back (below 100)
 * becomes a 502, and control bytes in response header values are dropped: a malformed answer from
 * an app reaches the client as a clean response or a 502, never as a broken connection.
 */
function proxyHandler(dial: string): Record<string, unknown> {
  return {
    handler: 'reverse_proxy',
    upstreams: [{ dial }],
    // Idle connections to an upstream close soon: after a swap, the old container is stopped once
    // no connection to it remains (deploy/drain.ts), and a reload leaves the old pool's idle ones open.
    // (giving keep_alive drops Caddy's default pool size to Go's 2 per host: keep a real pool)
    transport: { protocol: 'http', keep_alive: { idle_timeout: '3s', max_idle_conns_per_host: 128 } },
    trusted_proxies: ['0.0.0.0/0', '::/0'],
    headers: {
      request: { set: { 'X-Forwarded-Proto': ['{http.request.scheme}'], 'X-Forwarded-Host': ['{http.request.hostport}'] } },
      response: { replace: { '*': [{ search_regexp: '[\\x00-\\x08\\x0a-\\x1f\\x7f]', replace: '' }] } },
    },
    handle_response: [
      {
        match: { status_code: [0] },
        routes: [{ handle: [{ handler: 'static_response', status_code: 502, body: 'the service answered with an invalid HTTP status\n', headers: TEXT }] }],
      },
    ],
  };
}

/**
 * Forwards to a Swarm service's tasks, spread over nodes. A request whose task is gone (its node
 * died, the task was rescheduled) is retried on another one for up to 5 s (every 250 ms; dials
 * give up after 1 s, since a vanished node's address does not refuse, it stays silent), and a
 * task that failed a request is left out for a while (passive health checks), so losing a node
 * costs latency, not failed requests. The watcher (swarm/task-watcher.ts) takes tasks out of the
 * pool as soon as Docker reports them gone.
 */
function poolHandler(dials: readonly string[]): Record<string, unknown> {
  const base = proxyHandler(dials[0] ?? '');
  const transport = base.transport as Record<string, unknown>;
  return {
    ...base,
    upstreams: dials.map((dial) => ({ dial })),
    transport: { ...transport, dial_timeout: '1s' },
    load_balancing: { selection_policy: { policy: 'round_robin' }, try_duration: '5s', try_interval: '250ms' },
    health_checks: { passive: { fail_duration: '10s', max_fails: 1 } },
  };
}

/** The handler for an upstream value: one container, or a pool (an empty pool answers 503). */
function handlerFor(upstream: string, pools: ReadonlyMap<string, readonly string[]>): Record<string, unknown> {
  if (!upstream.startsWith(POOL_PREFIX)) return proxyHandler(upstream);
  const dials = pools.get(upstream.slice(POOL_PREFIX.length)) ?? [];
  return dials.length > 0 ? poolHandler(dials) : NOT_LIVE;
}

/** The request variable a hostname's route sets to its upstream (see hostnameRoutes). */
const UPSTREAM_VAR = 'berth_upstream';
/** Its value for a hostname with nothing live (an upstream is host:port, never this). */
const NOT_LIVE_MARK = 'none';

/**
 * Hostname routing in a shape whose load time stays small as hostnames grow: each hostname's
 * route only sets a variable (its upstream, or NOT_LIVE_MARK), and one reverse proxy after them
 * dials whatever the variable says. A reverse proxy per hostname would make Caddy provision a
 * proxy (transport, header rules, regexps) for every one of them on every /load: about 5 s for
 * 10,000 hostnames, against well under 1 s for this. Host matchers stay per hostname, so matching
 * stays case-insensitive and Caddy's automatic HTTPS still sees every hostname. Hostnames are
 * unique in `routes`, so at most one of their routes matches a request.
 */
function hostnameRoutes(routes: readonly ProxyRoute[], pools: ReadonlyMap<string, readonly string[]>): unknown[] {
  // a pool's hostnames set `pool:<serviceId>`: one reverse proxy per pool (a few), not per hostname
  const pooled = [...new Set(routes.flatMap((r) => (r.upstream?.startsWith(POOL_PREFIX) ? [r.upstream] : [])))].sort();
  return [
    // status pages: Caddy answers them itself, from their files (they outlive the daemon)
    ...routes.flatMap((r) => (r.pageFile === undefined ? [] : [{ match: [{ host: [r.hostname] }], handle: pageHandlers(r.pageFile), terminal: true }])),
    { handle: [{ handler: 'vars', [UPSTREAM_VAR]: '' }] },
    ...routes.filter((r) => r.pageFile === undefined).map((r) => ({ match: [{ host: [r.hostname] }], handle: [{ handler: 'vars', [UPSTREAM_VAR]: r.upstream ?? NOT_LIVE_MARK }] })),
    { match: [{ vars: { [UPSTREAM_VAR]: [''] } }], ...NOT_FOUND_ROUTE, terminal: true },
    { match: [{ vars: { [UPSTREAM_VAR]: [NOT_LIVE_MARK] } }], handle: [NOT_LIVE], terminal: true },
    ...pooled.map((p) => ({ match: [{ vars: { [UPSTREAM_VAR]: [p] } }], handle: [handlerFor(p, pools)], terminal: true })),
    { handle: [proxyHandler(`{http.vars.${UPSTREAM_VAR}}`)], terminal: true },
  ];
}

/** One plain-HTTP server per web service's host port, straight to its live container. */
function hostPortServers(hostPorts: readonly HostPortRoute[], pools: ReadonlyMap<string, readonly string[]>): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  for (const p of [...hostPorts].sort((a, b) => a.hostPort - b.hostPort)) {
    const listen = p.bindHost === '0.0.0.0' ? `:${p.hostPort}` : `${p.bindHost}:${p.hostPort}`;
    servers[`${HOST_PORT_SERVER_PREFIX}${p.hostPort}`] = { listen: [listen], routes: [{ handle: [handlerFor(p.upstream, pools)] }], automatic_https: { disable: true } };
  }
  return servers;
}

export function caddyConfig(input: CaddyConfigInput): Record<string, unknown> {
  const pools = input.pools ?? new Map<string, readonly string[]>();
  const routes = hostnameRoutes(input.routes, pools);
  const admin = { listen: input.adminListen };
  const ports = hostPortServers(input.hostPorts, pools);

  if (input.httpsMode === 'http') {
    return {
      admin,
      apps: {
        http: {
          http_port: portOf(input.httpAddr),
          servers: { [CADDY_SERVER_NAME]: { listen: [input.httpAddr], routes, automatic_https: { disable: true } }, ...ports },
        },
      },
    };
  }

  const issuer = input.httpsMode === 'acme' ? { module: 'acme', ...(input.acmeEmail ? { email: input.acmeEmail } : {}) } : { module: 'internal' };
  return {
    admin,
    apps: {
      http: {
        http_port: portOf(input.httpAddr),
        https_port: portOf(input.httpsAddr),
        servers: {
          [CADDY_SERVER_NAME]: { listen: [input.httpsAddr], routes },
          // Caddy adds its HTTP->HTTPS redirects (and answers ACME HTTP challenges) here.
          [CADDY_HTTP_SERVER_NAME]: { listen: [input.httpAddr], routes: [] },
          ...ports,
        },
      },
      tls: { automation: { policies: [{ issuers: [issuer] }] } },
      // The internal CA must never touch the host's trust store.
      pki: { certificate_authorities: { local: { install_trust: false } } },
    },
  };
}

export interface ApiTlsInput {
  /** BERTH_API_TLS_ADDR, e.g. :4310 */
  addr: string;
  /** Where the daemon's own API listens, e.g. 127.0.0.1:4311. */
  upstream: string;
  /** The server's address the certificate is issued for (clients reach the API by IP, without SNI). */
  subject: string;
}

/** Certificates for the API listener live this long: clients pin the leaf, so it must not rotate every few hours. */
const API_CERT_LIFETIME = '43800h';

/**
 * The installed daemon listens on loopback; this adds Caddy's HTTPS listener for the API on the
 * server's address, with a certificate from Caddy's internal CA signed by its root directly
 * (`sign_with_root`: an intermediate lives 7 days and would clamp the leaf, changing the pinned
 * fingerprint every week). Returns a new config; `config` is left as it is.
 */
export function withApiTlsListener(config: Record<string, unknown>, api: ApiTlsInput | null): Record<string, unknown> {
  if (!api) return config;
  const apps = { ...(config.apps as Record<string, Record<string, unknown>>) };
  const http = { ...apps.http };
  http.servers = {
    ...(http.servers as Record<string, unknown>),
    berth_api: {
      listen: [api.addr],
      routes: [{ handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: api.upstream }] }] }],
      tls_connection_policies: [{ default_sni: api.subject }],
      automatic_https: { disable_redirects: true },
    },
  };
  const tls = { ...apps.tls } as { automation?: { policies?: unknown[] }; certificates?: Record<string, unknown> };
  tls.certificates = { ...tls.certificates, automate: [api.subject] };
  tls.automation = {
    ...tls.automation,
    policies: [{ subjects: [api.subject], issuers: [{ module: 'internal', lifetime: API_CERT_LIFETIME, sign_with_root: true }] }, ...(tls.automation?.policies ?? [])],
  };
  return { ...config, apps: { ...apps, http, tls, pki: { certificate_authorities: { local: { install_trust: false } } } } };
}
