// One bridge network per project, so services reach each other by service slug.
import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { Labels, Ownership } from './labels.js';

function projectNetworkName(projectId: string): string {
  return `berth-${projectId}`;
}

/**
 * Every project network's Linux bridge is named `brth` + 11 hex digits (15 characters, the kernel's
 * limit): installers/berth-firewall.sh matches `brth+` to keep containers away from the host, the
 * metadata service and the private network, also for networks created after it ran. Networks
 * created before carry Docker's `br-<id>`; the script finds those by their labels each time it runs.
 */
export const BRIDGE_PREFIX = 'brth';

export function projectBridgeName(projectId: string): string {
  return BRIDGE_PREFIX + createHash('sha256').update(projectNetworkName(projectId)).digest('hex').slice(0, 11);
}

/** Creations in flight, per project: the Engine accepts two networks of one name, so concurrent deployments of a project must not both create it. */
const creating = new Map<string, Promise<string>>();

export function ensureProjectNetwork(docker: Docker, own: Ownership, projectId: string): Promise<string> {
  const pending = creating.get(projectId);
  if (pending) return pending;
  const work = createOnce(docker, own, projectId).finally(() => creating.delete(projectId));
  creating.set(projectId, work);
  return work;
}

async function createOnce(docker: Docker, own: Ownership, projectId: string): Promise<string> {
  const name = projectNetworkName(projectId);
  try {
    const info = (await docker.getNetwork(name).inspect()) as { Labels?: Labels };
    if (!own.owns(info.Labels, { projectId })) throw new Error(`network ${name} exists but Berth did not create it`);
    return name;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
  try {
    await docker.createNetwork({
      Name: name,
      Driver: 'bridge',
      CheckDuplicate: true,
      Labels: own.labels({ projectId }),
      Options: { 'com.docker.network.bridge.name': projectBridgeName(projectId) },
    });
  } catch (err) {
    // another deployment of the same project created it first
    if ((err as { statusCode?: number }).statusCode !== 409) throw err;
  }
  return name;
}

export async function removeProjectNetwork(docker: Docker, own: Ownership, projectId: string): Promise<void> {
  const network = docker.getNetwork(projectNetworkName(projectId));
  try {
    const info = (await network.inspect()) as { Labels?: Labels };
    if (own.owns(info.Labels, { projectId })) await network.remove();
  } catch {
    // already gone, or still in use by a container we do not own (then it is not ours to remove)
  }
}
