// Where Docker publishes a new container's port. A database's host port is published by the
// Engine itself (127.0.0.1, or all addresses when public): no proxy sits in front of it. A web
// service's container gets a loopback port of its own, fixed at creation so that it comes back on
// the same port after a restart of the container, dockerd or the host, where Caddy's saved routes
// expect it; Caddy serves the service's host port and hostnames in front of it.
import { createServer } from 'node:net';
import type { ServiceRecord } from '../core/records.js';
import type { Store } from '../core/ports/store.js';

export async function publishFor(store: Store, service: ServiceRecord): Promise<{ hostIp: string; hostPort: number } | undefined> {
  if (service.internalPort === null) return undefined;
  if (service.kind === 'database' && service.hostPort !== null) {
    return { hostIp: service.databasePublicEnabled ? '0.0.0.0' : '127.0.0.1', hostPort: service.hostPort };
  }
  // never a port some service holds as its host port (it may be unbound right now)
  const reserved = await store.services.usedHostPorts();
  for (let i = 0; i < 50; i++) {
    const port = await freeLoopbackPort();
    if (!reserved.has(port)) return { hostIp: '127.0.0.1', hostPort: port };
  }
  return undefined;
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
