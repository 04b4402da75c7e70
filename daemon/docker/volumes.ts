// The named volume that holds a database service's data: created with ownership labels, kept
// across redeploys, removed only when the service itself is deleted.
import type Docker from 'dockerode';
import type { Labels, Ownership } from './labels.js';

function serviceVolumeName(serviceId: string): string {
  return `berth-data-${serviceId}`;
}

export async function ensureServiceVolume(docker: Docker, own: Ownership, owner: { projectId: string; serviceId: string }): Promise<string> {
  const name = serviceVolumeName(owner.serviceId);
  try {
    const info = (await docker.getVolume(name).inspect()) as { Labels?: Labels | null };
    if (!own.owns(info.Labels, { serviceId: owner.serviceId })) throw new Error(`volume ${name} exists but Berth did not create it for this service`);
    return name;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
  await docker.createVolume({ Name: name, Labels: own.labels(owner) });
  return name;
}

/** Removes the service's volume when its labels prove it is this service's; false when there is none. */
export async function removeServiceVolume(docker: Docker, own: Ownership, serviceId: string): Promise<boolean> {
  const volume = docker.getVolume(serviceVolumeName(serviceId));
  let info: { Labels?: Labels | null };
  try {
    info = (await volume.inspect()) as { Labels?: Labels | null };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
  if (!own.owns(info.Labels, { serviceId })) return false;
  await volume.remove();
  return true;
}

/** Volumes this daemon made, with the service each belongs to. */
export async function listOwnedVolumes(docker: Docker, own: Ownership): Promise<{ name: string; serviceId: string }[]> {
  const res = (await docker.listVolumes({ filters: own.filter({}) })) as { Volumes?: { Name: string; Labels?: Labels | null }[] | null };
  const out: { name: string; serviceId: string }[] = [];
  for (const v of res.Volumes ?? []) {
    const serviceId = own.ownerOf(v.Labels)?.serviceId;
    if (serviceId) out.push({ name: v.Name, serviceId });
  }
  return out;
}

/**
 * The Docker name of a project's volume `name` (issue 28's service volumes): unique per project, so
 * a kept volume can be mounted by another service of the same project and never by another project.
 */
export function projectVolumeName(projectId: string, name: string): string {
  return `berth-vol-${projectId}-${name}`;
}

/** The label naming a project volume (with the project label, it proves which volume it is). */
const LABEL_VOLUME = 'dev.berth.volume';

/** Creates the project's volume `name` with ownership labels, or finds it (labels checked); its Docker name. */
export async function ensureProjectVolume(docker: Docker, own: Ownership, projectId: string, name: string): Promise<string> {
  const dockerName = projectVolumeName(projectId, name);
  try {
    const info = (await docker.getVolume(dockerName).inspect()) as { Labels?: Labels | null };
    if (!own.owns(info.Labels, { projectId }) || info.Labels?.[LABEL_VOLUME] !== name) throw new Error(`volume ${dockerName} exists but Berth did not create it for this project`);
    return dockerName;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
  await docker.createVolume({ Name: dockerName, Labels: { ...own.labels({ projectId }), [LABEL_VOLUME]: name } });
  return dockerName;
}

/** Removes the project's volume `name` when its labels prove it that one; false when there is none (or it is not ours). */
export async function removeProjectVolume(docker: Docker, own: Ownership, projectId: string, name: string): Promise<boolean> {
  const volume = docker.getVolume(projectVolumeName(projectId, name));
  let info: { Labels?: Labels | null };
  try {
    info = (await volume.inspect()) as { Labels?: Labels | null };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
  if (!own.owns(info.Labels, { projectId }) || info.Labels?.[LABEL_VOLUME] !== name) return false;
  await volume.remove();
  return true;
}

/** Removes every volume of the project (labels checked): a deleted project's kept volumes go with it. */
export async function removeProjectVolumes(docker: Docker, own: Ownership, projectId: string): Promise<number> {
  const res = (await docker.listVolumes({ filters: { label: [...own.filter({ projectId }).label, LABEL_VOLUME] } })) as { Volumes?: { Name: string; Labels?: Labels | null }[] | null };
  let removed = 0;
  for (const v of res.Volumes ?? []) {
    const name = v.Labels?.[LABEL_VOLUME];
    if (name && v.Name === projectVolumeName(projectId, name) && (await removeProjectVolume(docker, own, projectId, name))) removed++;
  }
  return removed;
}
