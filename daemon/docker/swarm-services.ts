// Swarm services through the Engine API: a Berth web or worker service with replicas or a
// placement runs as ONE Swarm service, on its project's attachable overlay network (dnsrr: no
// VIP, no routing mesh, neither passes traffic without IPVS), its port published in host mode on
// whatever node each task lands on. Every create and update carries the registry auth, so a
// worker can always pull. Nothing is changed or removed unless its labels prove it Berth's.
import type Docker from 'dockerode';
import type { RegistryAuth } from '../core/ports/swarm.js';
import { LABEL_PROJECT, type Labels, type Owner, type Ownership } from './labels.js';

export interface SwarmServiceSpec {
  name: string;
  image: string;
  env: Record<string, string>;
  labels: Labels;
  replicas: number;
  /** `node.labels.<k>==<v>` each. */
  constraints: string[];
  limits: { memoryMb: number; cpus: number; pids: number };
  internalPort: number | null;
  network: string;
  alias: string;
  cmd?: string[];
  stopGraceSeconds: number;
  /** Docker's HealthConfig.Test run in each task (docker/task-health.ts); null: the image's own HEALTHCHECK, or none. */
  healthCheck: string[] | null;
  /** How long a task may take to boot before failed checks count. */
  bootSeconds: number;
}

export interface OwnedSwarmService {
  id: string;
  name: string;
  version: number;
  image: string;
  /** The image of the spec before the last update (what Docker's rollback returns to), null when never updated. */
  previousImage: string | null;
  labels: Labels;
  /** Docker's UpdateStatus.State (`updating`, `completed`, `rollback_started`, `rollback_completed`, `paused`, ...), null before any update. */
  updateState: string | null;
  updateMessage: string;
  spec: Record<string, unknown>;
}

export function swarmServiceName(slug: string, serviceId: string): string {
  return `berth-${slug}-${serviceId.slice(0, 8)}`;
}

function overlayNetworkName(projectId: string): string {
  return `berth-${projectId}-overlay`;
}

/** The Engine's ServiceSpec for `s`: also the spec a rollback goes back to. */
function engineSpec(s: SwarmServiceSpec): Record<string, unknown> {
  return {
    Name: s.name,
    Labels: s.labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: s.image,
        // the ownership labels on each task's container too: the Engine's containers are Berth's to find
        Labels: s.labels,
        Env: Object.entries(s.env).map(([k, v]) => `${k}=${v}`),
        ...(s.cmd ? { Command: s.cmd } : {}),
        StopGracePeriod: s.stopGraceSeconds * 1e9,
        // a task counts as running once its check passes: a start-first update stops an old task only then
        ...(s.healthCheck ? { HealthCheck: { Test: s.healthCheck, Interval: 2e9, Timeout: 3e9, Retries: 3, StartPeriod: s.bootSeconds * 1e9 } } : {}),
      },
      Resources: { Limits: { MemoryBytes: s.limits.memoryMb * 1024 * 1024, NanoCPUs: Math.round(s.limits.cpus * 1e9), Pids: s.limits.pids } },
      RestartPolicy: { Condition: 'on-failure', Delay: 2e9, MaxAttempts: 0 },
      Placement: { Constraints: s.constraints },
      Networks: [{ Target: s.network, Aliases: [s.alias] }],
      LogDriver: { Name: 'json-file', Options: { 'max-size': '10m', 'max-file': '3' } },
    },
    Mode: { Replicated: { Replicas: s.replicas } },
    UpdateConfig: { Parallelism: 1, Order: 'start-first', FailureAction: 'rollback', Monitor: 10e9, MaxFailureRatio: 0 },
    RollbackConfig: { Parallelism: 1, Order: 'start-first', FailureAction: 'pause', Monitor: 5e9 },
    EndpointSpec: {
      Mode: 'dnsrr',
      // no PublishedPort: Docker picks one per task, so several tasks may share a node
      Ports: s.internalPort !== null ? [{ Protocol: 'tcp', TargetPort: s.internalPort, PublishMode: 'host' }] : [],
    },
  };
}

interface RawService {
  ID: string;
  Version?: { Index?: number };
  Spec?: { Name?: string; Labels?: Labels; TaskTemplate?: { ContainerSpec?: { Image?: string } } };
  PreviousSpec?: { TaskTemplate?: { ContainerSpec?: { Image?: string } } };
  UpdateStatus?: { State?: string; Message?: string };
}

function view(s: RawService): OwnedSwarmService {
  return {
    id: s.ID,
    name: s.Spec?.Name ?? '',
    version: s.Version?.Index ?? 0,
    image: s.Spec?.TaskTemplate?.ContainerSpec?.Image ?? '',
    previousImage: s.PreviousSpec?.TaskTemplate?.ContainerSpec?.Image ?? null,
    labels: s.Spec?.Labels ?? {},
    updateState: s.UpdateStatus?.State ?? null,
    updateMessage: s.UpdateStatus?.Message ?? '',
    spec: (s.Spec ?? {}) as Record<string, unknown>,
  };
}

/** Berth's Swarm services of an owner (labels checked, not only filtered). */
export async function listOwnedSwarmServices(docker: Docker, own: Ownership, owner: Owner): Promise<OwnedSwarmService[]> {
  const list = (await docker.listServices({ filters: own.filter(owner) })) as RawService[];
  // a Berth service's Swarm service carries its project; Berth's own helpers (jobs, engine relays) carry none
  return list.map(view).filter((s) => own.owns(s.labels, owner) && s.labels[LABEL_PROJECT] !== undefined);
}

export async function inspectOwnedSwarmService(docker: Docker, own: Ownership, id: string, owner: Owner): Promise<OwnedSwarmService | null> {
  try {
    const s = view((await docker.getService(id).inspect()) as RawService);
    return own.owns(s.labels, owner) ? s : null;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
}

export async function createSwarmService(docker: Docker, spec: SwarmServiceSpec, auth: RegistryAuth): Promise<string> {
  const created = await docker.createService(auth, engineSpec(spec) as unknown as Docker.CreateServiceOptions);
  return created.id;
}

/** A rolling update to `spec` (the auth on every update: workers pull the new image with it). */
export async function updateSwarmService(docker: Docker, current: OwnedSwarmService, spec: SwarmServiceSpec, auth: RegistryAuth): Promise<void> {
  await docker.getService(current.id).update({ authconfig: auth, _query: { version: current.version }, _body: engineSpec(spec) });
}

/** An update to a spec as Docker holds it, changed by the caller (placement, ...): the same rolling rules as a deploy. */
export async function updateSwarmSpec(docker: Docker, current: OwnedSwarmService, spec: Record<string, unknown>, auth: RegistryAuth): Promise<void> {
  await docker.getService(current.id).update({ authconfig: auth, _query: { version: current.version }, _body: spec });
}

/** Docker's own rollback to the spec before the last update (`docker service rollback`). */
export async function rollbackSwarmService(docker: Docker, current: OwnedSwarmService, auth: RegistryAuth): Promise<void> {
  await docker.getService(current.id).update({ authconfig: auth, _query: { version: current.version, rollback: 'previous' }, _body: current.spec });
}

export async function removeOwnedSwarmService(docker: Docker, own: Ownership, id: string, owner: Owner): Promise<boolean> {
  const found = await inspectOwnedSwarmService(docker, own, id, owner);
  if (!found) return false;
  await docker
    .getService(found.id)
    .remove()
    .catch((err: { statusCode?: number }) => {
      if (err.statusCode !== 404) throw err;
    });
  return true;
}

/** Creations in flight per project (the Engine accepts two networks of one name). */
const creating = new Map<string, Promise<string>>();

/** The project's attachable overlay network, created with ownership labels when first needed. */
export function ensureProjectOverlay(docker: Docker, own: Ownership, projectId: string): Promise<string> {
  const pending = creating.get(projectId);
  if (pending) return pending;
  const work = createOverlayOnce(docker, own, projectId).finally(() => creating.delete(projectId));
  creating.set(projectId, work);
  return work;
}

async function createOverlayOnce(docker: Docker, own: Ownership, projectId: string): Promise<string> {
  const name = overlayNetworkName(projectId);
  try {
    const info = (await docker.getNetwork(name).inspect()) as { Labels?: Labels };
    if (!own.owns(info.Labels, { projectId })) throw new Error(`network ${name} exists but Berth did not create it`);
    return name;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
  await docker.createNetwork({ Name: name, Driver: 'overlay', Attachable: true, CheckDuplicate: true, Labels: own.labels({ projectId }) });
  return name;
}

/**
 * The project's overlay when a container started here can join it: it exists (Swarm on, and a
 * service of the project ran on it) and this node is not drained (Docker places no network
 * attachment on a drained node: the container's start fails after 20 s). Null otherwise. Never creates it.
 */
export async function existingProjectOverlay(docker: Docker, own: Ownership, projectId: string): Promise<string | null> {
  const name = overlayNetworkName(projectId);
  try {
    const info = (await docker.getNetwork(name).inspect()) as { Labels?: Labels };
    if (!own.owns(info.Labels, { projectId })) return null;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
  return (await thisNodeDrained(docker)) ? null : name;
}

async function thisNodeDrained(docker: Docker): Promise<boolean> {
  const nodeId = ((await docker.info()) as { Swarm?: { NodeID?: string } }).Swarm?.NodeID;
  if (!nodeId) return false;
  const node = (await docker.getNode(nodeId).inspect()) as { Spec?: { Availability?: string } };
  return node.Spec?.Availability === 'drain';
}

/** Connects a container (a database, a single-container service) to the overlay under its slug, so replicated tasks reach it by name. Idempotent. */
export async function connectToOverlay(docker: Docker, network: string, containerId: string, alias: string): Promise<void> {
  const info = await docker.getContainer(containerId).inspect();
  if (info.NetworkSettings?.Networks?.[network]) return;
  await docker
    .getNetwork(network)
    .connect({ Container: containerId, EndpointConfig: { Aliases: [alias] } })
    .catch((err: { statusCode?: number; message?: string }) => {
      // connected meanwhile by a concurrent deployment
      if (!/already exists/i.test(err.message ?? '')) throw err;
    });
}

/** Removes the project's overlay; a removed Swarm service's tasks leave it within seconds, so "in use" is retried for a while. */
export async function removeProjectOverlay(docker: Docker, own: Ownership, projectId: string, tries = 15): Promise<void> {
  const network = docker.getNetwork(overlayNetworkName(projectId));
  for (let i = 0; i < tries; i++) {
    try {
      const info = (await network.inspect()) as { Labels?: Labels };
      if (own.owns(info.Labels, { projectId })) await network.remove();
      return;
    } catch (err) {
      const { statusCode, message } = err as { statusCode?: number; message?: string };
      // absent (Swarm off, or never needed), or in use by something that is not leaving
      if (statusCode === 404 || !/in use|active endpoints/i.test(message ?? '')) return;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
