// Host ports from BERTH_PORT_RANGE: unique across the daemon (a unique index backs this up),
// skipping ports something else on the host already listens on.
import { createServer } from 'node:net';
import type { PortProbe } from './ports/port-probe.js';

export interface PortRange {
  from: number;
  to: number;
}

/**
 * Listens on the address for an instant and lets it go: null when that worked, else the error code
 * (EADDRINUSE: something listens there; EACCES, EADDRNOTAVAIL: this process may not or cannot).
 * `host` undefined means every address, as Caddy's `:port`.
 */
export function tryListen(port: number, host: string | undefined): Promise<string | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(null)));
  });
}

/** True when nothing listens on the port on any local address. */
export const probeFree: PortProbe = async (port) => (await tryListen(port, '0.0.0.0')) === null;

export async function pickHostPort(range: PortRange, used: ReadonlySet<number>, probe: PortProbe): Promise<number | null> {
  for (let port = range.from; port <= range.to; port++) {
    if (!used.has(port) && (await probe(port))) return port;
  }
  return null;
}
