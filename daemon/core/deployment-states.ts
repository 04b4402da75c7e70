// The deployment state machine: which status may follow which, the one way a status is written,
// the deployment that is live, and the service status that follows from its deployments.
//
// Every status change goes through `recordStatus`: it checks the table, then writes with
// `WHERE status IN (the allowed predecessors)`, so when two writers race (a start-up reconciliation
// and a deployment going live, a failure and a supersede) the loser changes nothing and a finished
// deployment never takes back what it said.
import { DEPLOYMENT_STATUSES, deploymentFinal, LIVE_DEPLOYMENT_STATUS } from '../../shared/statuses.js';
import type { DeploymentStatus, ServiceStatus } from '../../shared/types.js';
import { IllegalTransition } from './errors.js';
import type { DeploymentRecord } from './records.js';
import type { DeploymentPatch, DeploymentRepo, Store } from './ports/store.js';

/** Every deployment is stored first as `queued` (core/deployments.ts). */
export const INITIAL_STATUS: DeploymentStatus = 'queued';

/**
 * The allowed moves, and nothing else. A status with no move is final: the meaning of each status
 * (final, live, in progress) is stated in shared/statuses.ts for every program, and
 * test/unit/statuses.test.ts proves this table agrees with it.
 */
export const TRANSITIONS: { readonly [From in DeploymentStatus]: readonly DeploymentStatus[] } = {
  // picked up by the runner; replaced in the queue by a newer deployment of the service; aborted
  // by a user; or the daemon stopped before it ran (start-up reconciliation)
  queued: ['building', 'superseded', 'aborted', 'failed'],
  // went live; its build, start or health check failed (or the daemon stopped meanwhile); aborted
  building: ['running', 'failed', 'aborted'],
  // live until a newer deployment goes live; failed when its container was gone at start-up
  running: ['superseded', 'failed'],
  superseded: [],
  failed: [],
  aborted: [],
};

export { DEPLOYMENT_STATUSES };

/** True when nothing may follow the status. */
export const isFinal: (status: DeploymentStatus) => boolean = deploymentFinal;

/** The statuses from which a deployment may move to `to`. */
export function predecessorsOf(to: DeploymentStatus): DeploymentStatus[] {
  return DEPLOYMENT_STATUSES.filter((from) => TRANSITIONS[from].includes(to));
}

/** Returns `to` when the table allows `from -> to`; throws IllegalTransition otherwise. */
export function transition(from: DeploymentStatus, to: DeploymentStatus, deploymentId?: string): DeploymentStatus {
  if (!TRANSITIONS[from].includes(to)) throw new IllegalTransition(from, to, deploymentId);
  return to;
}

/** A few tries when the status moves between the read and the write to another allowed predecessor. */
const WRITE_ATTEMPTS = 3;

/**
 * Moves a deployment to `to` (with `patch` in the same write) when the table allows it from the
 * status it has at the moment of the write. Returns the record as written, or null when the
 * deployment no longer exists (its service was deleted). Throws IllegalTransition when the move is
 * not allowed from its status, including when another writer got there first.
 */
export async function recordStatus(deployments: Pick<DeploymentRepo, 'get' | 'setStatus'>, id: string, to: DeploymentStatus, patch: DeploymentPatch = {}): Promise<DeploymentRecord | null> {
  const allowedFrom = predecessorsOf(to);
  for (let attempt = 1; ; attempt++) {
    const current = await deployments.get(id);
    if (!current) return null;
    transition(current.status, to, id);
    if (await deployments.setStatus(id, to, allowedFrom, patch)) return { ...current, ...patch, status: to };
    // Lost to a concurrent write: read again; the table decides whether the move still applies.
    if (attempt >= WRITE_ATTEMPTS) throw new IllegalTransition(current.status, to, id);
  }
}

/** A deployment that serves its service: it went live and has its container. */
export type LiveDeployment = DeploymentRecord & { status: 'running'; containerId: string };

export function isLive(d: DeploymentRecord): d is LiveDeployment {
  return d.status === LIVE_DEPLOYMENT_STATUS && d.containerId !== null;
}

/**
 * The deployment serving a service now: its newest `running` deployment that has a container;
 * null when nothing is live. The one answer to "which deployment is live": backups and restores
 * (server.ts), database sessions, Caddy's upstreams, a database redeploy and its crash recovery,
 * and the engine after a restore restarted the container all ask here.
 */
export async function liveDeployment(store: Pick<Store, 'deployments'>, serviceId: string): Promise<LiveDeployment | null> {
  return (await liveDeployments(store, [serviceId])).get(serviceId) ?? null;
}

/** The live deployment of each of the services that has one (see liveDeployment). */
export async function liveDeployments(store: Pick<Store, 'deployments'>, serviceIds: readonly string[]): Promise<Map<string, LiveDeployment>> {
  const out = new Map<string, LiveDeployment>();
  if (serviceIds.length === 0) return out;
  for (const d of await store.deployments.live(serviceIds)) if (isLive(d)) out.set(d.serviceId, d);
  return out;
}

/**
 * A service's status once a deployment of it ended without going live: `building` while another
 * one builds, `active` while one is live, `failed` when nothing is.
 */
export function serviceStatusAfterFailure(deployments: readonly DeploymentRecord[]): { status: ServiceStatus; live: boolean } {
  const live = deployments.some(isLive);
  const busy = deployments.some((x) => x.status === 'building');
  return { status: busy ? 'building' : live ? 'active' : 'failed', live };
}
