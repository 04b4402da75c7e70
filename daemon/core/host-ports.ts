// Host ports from BERTH_PORT_RANGE: unique across the daemon (a unique index backs this up),
// skipping ports something else on the host already listens on.
import { createServer } from 'node:net';

export interface PortRange {
  from: number;
  to: number;
}

export type PortProbe = (port: number) => Promise<boolean>;

/** True when nothing listens on the port on any local address. */
export const probeFree: PortProbe = (port) =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '0.0.0.0', exclusive: true }, () => srv.close(() => resolve(true)));
  });

export async function pickHostPort(range: PortRange, used: ReadonlySet<number>, probe: PortProbe): Promise<number | null> {
  for (let port = range.from; port <= range.to; port++) {
    if (!used.has(port) && (await probe(port))) return port;
  }
  return null;
}
