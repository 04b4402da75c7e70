// Whether something on this host listens on a port: listen for an instant and let go. Core's
// PortProbe (host ports of database services) and the proxy's listen-address check use it.
import { createServer } from 'node:net';
import type { PortProbe } from '../core/ports/port-probe.js';

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
