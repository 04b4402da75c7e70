// Where a git clone may connect (issue 26, item 9). Clones run in the daemon, on the host: from
// there loopback reaches every tenant's published app and database and the host's own services,
// and the host reaches every container. So a repository a key over selected projects gave is
// cloned only from what its apps could reach too (the redis import's rule, backups/source-reach.ts):
// another server, or a service of its own projects through its host port. A key over all projects
// (the server's owner) keeps cloning from anywhere. A service's clone URL is fixed when it is
// created, so whether its source came from a key over all projects is recorded then (a setting
// per service), and every later clone (a deployment, a webhook's, a build-plan preview by a key
// over selected projects) applies the recorded reach.
import type { Access } from './access.js';
import type { CloneReach } from './ports/clone-reach-check.js';
import type { ServiceRecord } from './records.js';
import type { Store } from './ports/store.js';

const SETTING_PREFIX = 'clone-reach/';
const ANYWHERE = 'anywhere';

/** The setting that records a service's source as given by a key over all projects. */
export function cloneReachSetting(serviceId: string): string {
  return `${SETTING_PREFIX}${serviceId}`;
}

async function ownHostPorts(store: Store, projectIds: readonly string[]): Promise<ReadonlySet<number>> {
  const own = await store.services.list(projectIds);
  return new Set(own.filter((s) => s.hostPort !== null).map((s) => s.hostPort!));
}

/** What a key reaches: anywhere over all projects; else not this host but its projects' host ports. */
export async function cloneReachOfKey(store: Store, access: Access): Promise<CloneReach> {
  const projects = access.key.projects;
  if (projects === 'all') return { anywhere: true };
  return { anywhere: false, ownHostPorts: await ownHostPorts(store, projects) };
}

/** What a service's clones reach: what the key that gave its source reached. */
export async function cloneReachOfService(store: Store, service: Pick<ServiceRecord, 'id' | 'projectId'>): Promise<CloneReach> {
  if ((await store.settings.get(cloneReachSetting(service.id))) === ANYWHERE) return { anywhere: true };
  return { anywhere: false, ownHostPorts: await ownHostPorts(store, [service.projectId]) };
}

/** Records the reach of the key that gave a new service its source (nothing for a key over selected projects). */
export async function recordCloneReach(store: Store, serviceId: string, reach: CloneReach, at: string): Promise<void> {
  if (reach.anywhere) await store.settings.set(cloneReachSetting(serviceId), ANYWHERE, at);
}

/** The wider of two reaches: a key over all projects previewing or deploying keeps its freedom. */
export function widerReach(a: CloneReach, b: CloneReach): CloneReach {
  if (a.anywhere || b.anywhere) return { anywhere: true };
  return { anywhere: false, ownHostPorts: new Set([...a.ownHostPorts, ...b.ownHostPorts]) };
}
