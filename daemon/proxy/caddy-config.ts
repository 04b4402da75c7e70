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
