// Caddy's whole JSON configuration, generated from what Berth routes. Pure: the same input always
// gives the same config, so a load either replaces everything or (when Caddy refuses it) nothing.

/** The Caddy server that carries Berth's routes; its absence means Caddy lost the config. */
export const CADDY_SERVER_NAME = 'berth';

export type HttpsMode = 'acme' | 'internal' | 'http';

export interface ProxyRoute {
  hostname: string;
  /** Host and port the route forwards to, e.g. 127.0.0.1:20001. */
  upstream: string;
}

export interface CaddyConfigInput {
  routes: readonly ProxyRoute[];
  httpsMode: HttpsMode;
  acmeEmail: string | null;
  /** host:port or :port */
  httpAddr: string;
  httpsAddr: string;
  /** The admin endpoint's host:port, kept in every loaded config so a load never locks Berth out. */
  adminListen: string;
}

export function portOf(addr: string): number {
  return Number(addr.slice(addr.lastIndexOf(':') + 1));
}

const NOT_FOUND_ROUTE = {
  handle: [{ handler: 'static_response', status_code: 404, body: 'no service is routed for this hostname\n', headers: { 'Content-Type': ['text/plain; charset=utf-8'] } }],
};

export function caddyConfig(input: CaddyConfigInput): Record<string, unknown> {
  const routes = [
    ...input.routes.map((r) => ({
      match: [{ host: [r.hostname] }],
      handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: r.upstream }] }],
      terminal: true,
    })),
    NOT_FOUND_ROUTE,
  ];
  const admin = { listen: input.adminListen };

  if (input.httpsMode === 'http') {
    return {
      admin,
      apps: {
        http: {
          http_port: portOf(input.httpAddr),
          servers: { [CADDY_SERVER_NAME]: { listen: [input.httpAddr], routes, automatic_https: { disable: true } } },
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
          berth_http: { listen: [input.httpAddr], routes: [] },
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
export const API_CERT_LIFETIME = '43800h';

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
