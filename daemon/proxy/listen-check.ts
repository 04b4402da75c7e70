// Caddy 2.6 leaks the HTTP servers of a configuration it refuses because one of its listeners
// cannot bind: the servers started before the failing one keep accepting on their (shared) sockets,
// beside the previous configuration's, until Caddy restarts. A refused load therefore left Caddy
// answering about half the connections with the refused routes, even after later good loads.
// So before a load, Berth tries each address the new configuration listens on that Caddy does not
// hold yet, and sends nothing when one is taken.
import { tryListen } from './host-port-probe.js';

/** Every address the configuration's HTTP servers listen on (Caddy's `host:port` / `:port` form). */
export function listenAddresses(config: unknown): string[] {
  const servers = (config as { apps?: { http?: { servers?: Record<string, { listen?: unknown }> } } } | null)?.apps?.http?.servers ?? {};
  const out = new Set<string>();
  for (const server of Object.values(servers)) {
    if (!Array.isArray(server?.listen)) continue;
    for (const addr of server.listen) if (typeof addr === 'string') out.add(addr);
  }
  return [...out];
}

/** `127.0.0.1:8080`, `:80`, `[::1]:443`; null for forms Berth does not generate (ranges, unix sockets). */
export function parseListen(addr: string): { host: string | undefined; port: number } | null {
  const m = /^(?:tcp\/)?(\[[0-9a-fA-F:.]+\]|[^:[\]]*):(\d{1,5})$/.exec(addr);
  if (!m) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  const host = m[1] === '' ? undefined : m[1]!.replace(/^\[|\]$/g, '');
  return { host, port };
}

/**
 * The first of `addresses` another program already listens on, or null. Only EADDRINUSE counts:
 * a port this process may not bind (below 1024 when the daemon is not root) or an address it does
 * not have is left for Caddy to judge.
 */
export async function firstAddressInUse(addresses: readonly string[]): Promise<string | null> {
  for (const addr of addresses) {
    const at = parseListen(addr);
    if (!at) continue;
    if ((await tryListen(at.port, at.host)) === 'EADDRINUSE') return addr;
  }
  return null;
}
