// Host ports from BERTH_PORT_RANGE: unique across the daemon (a unique index backs this up),
// skipping ports something else on the host already listens on (asked through the PortProbe port).
import type { PortProbe } from './ports/port-probe.js';

export interface PortRange {
  from: number;
  to: number;
}

export async function pickHostPort(range: PortRange, used: ReadonlySet<number>, probe: PortProbe): Promise<number | null> {
  for (let port = range.from; port <= range.to; port++) {
    if (!used.has(port) && (await probe(port))) return port;
  }
  return null;
}
