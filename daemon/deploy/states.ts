// Recording deployment and service states, in one place so every path tells the same truth.
import type { DeploymentStatus } from '../../shared/types.js';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import type { DeployDeps } from './context.js';

export async function setStatus(
  d: Pick<DeployDeps, 'store' | 'events'>,
  dep: DeploymentRecord,
  status: DeploymentStatus,
  patch: Partial<DeploymentRecord>,
): Promise<void> {
  await d.store.deployments.update(dep.id, { ...patch, status });
  const service = await d.store.services.get(dep.serviceId);
  if (service) d.events.hub.publish({ type: 'deployment', projectId: service.projectId, data: { deploymentId: dep.id, serviceId: dep.serviceId, projectId: service.projectId, status } });
}

/** Updates a service; a change of status or reachable is published as a `service` event. */
export async function setServiceState(d: Pick<DeployDeps, 'store' | 'events'>, serviceId: string, patch: Partial<ServiceRecord>): Promise<void> {
  const before = await d.store.services.get(serviceId);
  if (!before) return;
  await d.store.services.update(serviceId, patch);
  const after = { ...before, ...patch };
  if (after.status !== before.status || after.reachable !== before.reachable) {
    d.events.hub.publish({ type: 'service', projectId: after.projectId, data: { serviceId, projectId: after.projectId, status: after.status, reachable: after.reachable } });
  }
}

export async function finishFailed(d: Pick<DeployDeps, 'store' | 'events' | 'clock'>, dep: DeploymentRecord, status: 'failed' | 'aborted'): Promise<void> {
  await setStatus(d, dep, status, { finishedAt: d.clock.now() });
}

/** After a failure: still `active` when another deployment is live, `failed` when nothing is. */
export async function markServiceAfterFailure(d: Pick<DeployDeps, 'store' | 'clock' | 'events'>, serviceId: string): Promise<void> {
  const service = await d.store.services.get(serviceId);
  if (!service) return;
  const deployments = await d.store.deployments.listByService(serviceId);
  const live = deployments.some((x) => x.status === 'running');
  const busy = deployments.some((x) => x.status === 'building');
  await setServiceState(d, serviceId, {
    status: busy ? 'building' : live ? 'active' : 'failed',
    reachable: live && service.reachable,
    updatedAt: d.clock.now(),
  });
}
