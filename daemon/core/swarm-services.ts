// Which of the store's services tie Swarm mode's hands: the ones pinned to the manager (databases
// and web services with volumes run as plain containers next to their data there, decided for
// issue 29) and the replicated or placed ones (Swarm cannot be turned off under them).
import type { Store } from './ports/store.js';
import type { ServiceRecord } from './records.js';

/** `<project slug>/<service slug>` of each service, for messages that name them. */
async function named(store: Store, services: readonly ServiceRecord[]): Promise<string[]> {
  const slugs = new Map((await store.projects.list()).map((p) => [p.id, p.slug]));
  return services.map((s) => `${slugs.get(s.projectId) ?? s.projectId}/${s.slug}`).sort();
}

/** Databases and web services with volumes: they run on the manager, where their data is (unless a database was given another node). */
export async function managerPinnedServices(store: Store): Promise<string[]> {
  const services = await store.services.list();
  return named(
    store,
    services.filter((s) => (s.kind === 'database' && s.nodeId === null) || s.volumes.length > 0),
  );
}

/** The databases created on the worker `nodeId`: their data lives there. */
export async function nodePinnedServices(store: Store, nodeId: string): Promise<string[]> {
  const services = await store.services.list();
  return named(
    store,
    services.filter((s) => s.nodeId === nodeId),
  );
}

/** Services with more than one replica or a placement: they only run in Swarm mode. */
export async function swarmOnlyServices(store: Store): Promise<string[]> {
  const services = await store.services.list();
  return named(
    store,
    services.filter((s) => s.replicas > 1 || Object.keys(s.placement).length > 0),
  );
}

/** "a, b and 3 more": a list for a message that stays short. */
export function listForMessage(names: readonly string[], max = 10): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
