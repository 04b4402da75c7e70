// At start-up, make the store and Docker agree: work interrupted by a crash is recorded as failed
// (with a log line saying why) and its debris removed; live containers are adopted as they are,
// not restarted; containers nothing in the store accounts for are removed (labels checked).
// The store's part needs no Docker and runs once at start; the Docker part runs when the Engine
// answers, which may be later (reconcile-retry.ts), while the API already serves.
import { IN_PROGRESS_DEPLOYMENT_STATUSES, LIVE_DEPLOYMENT_STATUS } from '../../shared/statuses.js';
import { isFinal } from '../core/deployment-states.js';
import type { DeploymentRecord } from '../core/records.js';
import { containerState, listOwnedContainers, publishedPort, removeOwnedContainer } from '../docker/containers.js';
import { removeOwnedImage } from '../docker/images.js';
import { LABEL_DEPLOYMENT, LABEL_IMAGE_OWNER, LABEL_SERVICE } from '../docker/labels.js';
import { removeProjectNetwork } from '../docker/networks.js';
import { listOwnedVolumes, removeServiceVolume } from '../docker/volumes.js';
import { inspectOwnedSwarmService } from '../docker/swarm-services.js';
import type { DeployDeps } from './context.js';
import { startDatabaseStoppedByCrash } from './database-run.js';
import { onHost, serviceHost, type ServiceHost } from './service-host.js';
import { waitUntilAnswering } from './health.js';
import { finishFailed, markServiceAfterFailure, setServiceState, setStatus } from './states.js';

/** The truth in the store, which needs no Docker: work a crash interrupted is failed. Returns it. */
export async function recordInterrupted(d: DeployDeps): Promise<DeploymentRecord[]> {
  const interrupted = await d.store.deployments.listByStatus(IN_PROGRESS_DEPLOYMENT_STATUSES);
  for (const dep of interrupted) {
    d.buildLogs.append(dep.id, dep.id, `The daemon stopped while this deployment was ${dep.status}; it did not finish. Deploy again.`, 'stderr');
    await finishFailed(d, dep, 'failed');
    await markServiceAfterFailure(d, dep.serviceId);
  }
  return interrupted;
}

/** What needs the Engine: the interrupted work's debris, adopting live containers, removing the rest. */
export async function reconcileDocker(d: DeployDeps, interrupted: readonly DeploymentRecord[]): Promise<void> {
  for (const dep of interrupted) {
    // on the Engine the service's containers run on (another node's for a database created there)
    const host = await hostOf(d, dep.serviceId);
    if (host) {
      for (const c of await listOwnedContainers(host.docker, d.own, { deploymentId: dep.id })) {
        await removeOwnedContainer(host.docker, d.own, c.id, { serviceId: dep.serviceId }, 2);
      }
    }
    // a rollback built nothing: its image is an earlier deployment's, kept
    if (dep.imageTag && dep.buildMethod !== 'image' && dep.trigger !== 'rollback') await removeOwnedImage(d.docker, d.own, dep.imageTag, { serviceId: dep.serviceId });
  }

  const live = new Set<string>();
  for (const dep of await d.store.deployments.listByStatus([LIVE_DEPLOYMENT_STATUS])) {
    const service = await d.store.services.get(dep.serviceId);
    // a Swarm-backed deployment is a Swarm service, which Swarm keeps running: adopted as it is
    if (service && dep.upstreamPort === null && dep.containerId && (await d.swarmTasks.isSwarmDeployment(dep))) {
      if (await inspectOwnedSwarmService(d.docker, d.own, dep.containerId, { serviceId: service.id }).catch(() => null)) {
        await setServiceState(d, service.id, { status: 'active' });
        await d.runtimeLogs.followSwarm(service.id, dep.id, dep.containerId, Math.floor(Date.now() / 1000)).catch((err: unknown) => d.log('following logs', err));
        continue;
      }
    }
    // a database created on another Swarm node is adopted through that node's Engine; a node that
    // cannot be reached now proves nothing about it: it stays live, unreachable, until it answers
    const host = await hostOf(d, dep.serviceId);
    if (service && !host) {
      await setServiceState(d, service.id, { status: 'active', reachable: false });
      continue;
    }
    const on = host ? onHost(d, host) : d;
    let state = dep.containerId ? await containerState(on.docker, dep.containerId) : null;
    // a database redeploy stops the live container before starting the new one: a crash in between leaves it stopped
    if (service?.kind === 'database' && state && !state.running) state = await startDatabaseStoppedByCrash(on, service, dep);
    if (!service || !state || !state.running) {
      d.buildLogs.append(dep.id, dep.id, 'The container of this deployment was gone or stopped when the daemon started', 'stderr');
      await setStatus(d, dep, 'failed', {});
      await markServiceAfterFailure(d, dep.serviceId);
      continue;
    }
    live.add(dep.containerId!);
    const port = service.internalPort !== null ? await publishedPort(on.docker, dep.containerId!, `${service.internalPort}/tcp`) : null;
    // Adopted as it runs: Caddy keeps routing to it (the start-up sync loads only what differs).
    if (port !== null && port !== dep.upstreamPort) await d.store.deployments.update(dep.id, { upstreamPort: port });
    // reachable is checked, not assumed: the adopted container must answer now
    const kind = service.kind === 'database' ? 'tcp' : 'http';
    const answering = port === null || (await waitUntilAnswering(port, kind, 5000, new AbortController().signal, async () => true, host?.address)) === 'answering';
    await setServiceState(d, service.id, { status: 'active', reachable: answering });
    await d.runtimeLogs.follow(service.id, dep.id, dep.containerId!, Math.floor(Date.now() / 1000), on.docker).catch((err: unknown) => d.log('following logs', err));
  }

  for (const c of await listOwnedContainers(d.docker, d.own, {})) {
    // Swarm's task containers carry the labels too; Swarm, not Berth, runs them
    if (live.has(c.id) || c.labels['com.docker.swarm.task.id'] || (await stillWanted(d, c.labels[LABEL_DEPLOYMENT]))) continue;
    const serviceId = c.labels[LABEL_SERVICE];
    if (serviceId) await removeOwnedContainer(d.docker, d.own, c.id, { serviceId }, 2);
  }
  await removeLeftovers(d);
}

/**
 * The Engine and address of a service's containers: this server's for a service that is gone; null
 * when they run on another node that cannot be reached now (the daemon log says so).
 */
async function hostOf(d: DeployDeps, serviceId: string): Promise<ServiceHost | null> {
  const service = await d.store.services.get(serviceId);
  try {
    return await serviceHost(d, service ?? { nodeId: null });
  } catch (err) {
    d.log(`reconciling ${serviceId} on node ${service?.nodeId}: the node cannot be reached now; its containers there are left as they are`, err);
    return null;
  }
}

/** A deployment started or gone live after this reconciliation began (it may run while the API serves). */
async function stillWanted(d: DeployDeps, deploymentId: string | undefined): Promise<boolean> {
  if (!deploymentId) return false;
  const dep = await d.store.deployments.get(deploymentId);
  return dep !== null && !isFinal(dep.status);
}

/** Images, data volumes and networks of services and projects deleted while the Engine was unreachable. */
async function removeLeftovers(d: DeployDeps): Promise<void> {
  for (const image of await d.docker.listImages({ filters: { label: [LABEL_IMAGE_OWNER] } })) {
    const owner = d.own.ownerOf(image.Labels);
    if (owner?.serviceId && !(await d.store.services.get(owner.serviceId))) {
      await removeOwnedImage(d.docker, d.own, image.Id, { serviceId: owner.serviceId });
    }
  }
  for (const volume of await listOwnedVolumes(d.docker, d.own)) {
    if (!(await d.store.services.get(volume.serviceId))) await removeServiceVolume(d.docker, d.own, volume.serviceId);
  }
  for (const network of await d.docker.listNetworks({ filters: d.own.filter({}) })) {
    const projectId = d.own.ownerOf(network.Labels)?.projectId;
    if (projectId && !(await d.store.projects.get(projectId))) await removeProjectNetwork(d.docker, d.own, projectId);
  }
}
