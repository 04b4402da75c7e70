// Recording deployment and service states, in one place so every path tells the same truth. The
// moves a deployment may make are core's state table (core/deployment-states.ts).
import type { DeploymentStatus } from '../../shared/types.js';
import { recordStatus, serviceStatusAfterFailure } from '../core/deployment-states.js';
import { IllegalTransition } from '../core/errors.js';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import type { DeploymentPatch } from '../core/ports/store.js';
import type { DeployDeps } from './context.js';

/**
 * Moves a deployment to `status` through the state table and publishes the change. False when it
 * did not move: the deployment is gone, or another writer already ended it (logged; nothing is
 * written, nothing published, so a finished deployment never takes back what it said).
 */
export async function setStatus(d: Pick<DeployDeps, 'store' | 'events' | 'log'>, dep: DeploymentRecord, status: DeploymentStatus, patch: DeploymentPatch): Promise<boolean> {
  try {
    if (!(await recordStatus(d.store.deployments, dep.id, status, patch))) return false;
  } catch (err) {
    if (!(err instanceof IllegalTransition)) throw err;
    d.log(`${err.message}; its status stays as it is`);
    return false;
  }
  const service = await d.store.services.get(dep.serviceId);
  if (service) d.events.hub.publish({ type: 'deployment', projectId: service.projectId, data: { deploymentId: dep.id, serviceId: dep.serviceId, projectId: service.projectId, status } });
  return true;
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

export async function finishFailed(d: Pick<DeployDeps, 'store' | 'events' | 'clock' | 'log'>, dep: DeploymentRecord, status: 'failed' | 'aborted'): Promise<boolean> {
  return setStatus(d, dep, status, { finishedAt: d.clock.now() });
}

/**
 * After a failure: still `active` when another deployment is live, `failed` when nothing is.
 * `ending` names a deployment that is failing right now but not yet recorded so: it counts as
 * ended, so the service can be marked before the deployment's own status is written and a client
 * that sees the deployment `failed` never reads its service still `building`.
 */
export async function markServiceAfterFailure(d: Pick<DeployDeps, 'store' | 'clock' | 'events'>, serviceId: string, ending?: string): Promise<void> {
  const service = await d.store.services.get(serviceId);
  if (!service) return;
  const others = (await d.store.deployments.listByService(serviceId)).filter((x) => x.id !== ending);
  const { status, live } = serviceStatusAfterFailure(others);
  await setServiceState(d, serviceId, { status, reachable: live && service.reachable, updatedAt: d.clock.now() });
}
