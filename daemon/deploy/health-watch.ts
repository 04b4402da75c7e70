// Keeps `reachable` true to what it says after a deployment: every interval, each live container's
// port is probed, and the service row changes only when the answer does. A container that Docker
// restarted keeps its fixed published port; should it ever move (a container from an older Berth
// published on an ephemeral port), the store and Caddy follow it.
import { LIVE_DEPLOYMENT_STATUS } from '../../shared/statuses.js';
import { publishedPort } from '../docker/containers.js';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import type { DeployDeps } from './context.js';
import { waitUntilAnswering } from './health.js';
import { setServiceState } from './states.js';
import { serviceAddress, serviceHost } from './service-host.js';

async function probe(d: DeployDeps, port: number, service: ServiceRecord): Promise<boolean> {
  const kind = service.kind === 'database' ? 'tcp' : 'http';
  // a database on another Swarm node answers at that node's address (and not at all while the node is down)
  const host = await serviceAddress(d.nodeEngines, service).catch(() => null);
  if (host === null) return false;
  return (await waitUntilAnswering(port, kind, 3000, new AbortController().signal, async () => true, host)) === 'answering';
}

/** The container's current published port, followed by Caddy when it moved. */
async function currentPort(d: DeployDeps, dep: DeploymentRecord, service: ServiceRecord): Promise<number | null> {
  if (!dep.containerId || service.internalPort === null) return null;
  // on the Engine it runs on (another node's for a database created there; none while that node is down)
  const docker = await serviceHost(d, service).then(
    (h) => h.docker,
    () => null,
  );
  const port = docker && (await publishedPort(docker, dep.containerId, `${service.internalPort}/tcp`).catch(() => null));
  if (port !== null && port !== dep.upstreamPort) {
    await d.store.deployments.update(dep.id, { upstreamPort: port });
    await d.dataPlane.apply();
  }
  return port;
}

export function watchReachability(d: DeployDeps, intervalMs: number): () => void {
  let running = false;
  const check = async () => {
    if (running) return;
    running = true;
    try {
      for (const dep of await d.store.deployments.listByStatus([LIVE_DEPLOYMENT_STATUS])) {
        const service = await d.store.services.get(dep.serviceId);
        if (!service || dep.upstreamPort === null) continue;
        let answering = await probe(d, dep.upstreamPort, service);
        if (!answering) {
          const port = await currentPort(d, dep, service);
          if (port !== null && port !== dep.upstreamPort) answering = await probe(d, port, service);
        }
        if (answering !== service.reachable) await setServiceState(d, service.id, { reachable: answering });
      }
    } catch (err) {
      d.log('checking reachability', err);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
