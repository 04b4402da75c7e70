// A deployment of a Swarm-backed service (Swarm on, and replicas > 1 or a placement): its image is
// pushed to Berth's registry, the project's containers join the project's overlay under their
// slugs, and the ONE Swarm service of the Berth service is created or rolled to the new image
// (swarm-rollout.ts follows it). It goes live once every task answers; otherwise the previous
// release keeps serving: a new Swarm service is removed, an updated one is rolled back.
import { BuildError } from '../core/build-error.js';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import { effectiveLimits } from '../core/limits.js';
import { listOwnedContainers } from '../docker/containers.js';
import { pushImage, registryRef } from '../docker/image-push.js';
import { LABEL_SERVICE } from '../docker/labels.js';
import {
  connectToOverlay,
  createSwarmService,
  ensureProjectOverlay,
  existingProjectOverlay,
  inspectOwnedSwarmService,
  listOwnedSwarmServices,
  removeOwnedSwarmService,
  rollbackSwarmService,
  swarmServiceName,
  updateSwarmService,
  type OwnedSwarmService,
  type SwarmServiceSpec,
} from '../docker/swarm-services.js';
import type { RegistryAuth } from '../core/ports/swarm.js';
import type { DeployDeps } from './context.js';
import { retireInBackground } from './retire.js';
import { followRollout } from './swarm-rollout.js';
import { taskHealth } from '../docker/task-health.js';
import { setServiceState, setStatus } from './states.js';

type Say = (line: string, stream?: 'stdout' | 'stderr') => void;

/** How long a stopping task gets (Docker's default is 10 s; the same as a container's stop). */
const STOP_GRACE_SECONDS = 10;
/** How long a rollback (Swarm's or Berth's) may take before the deployment says so and ends anyway. */
const ROLLBACK_WAIT_MS = 90_000;

/**
 * Whether a deployment of `service` runs on Swarm. Databases and services with volumes or config
 * files (both live on the manager's disk) stay containers on the manager, as does everything while
 * Swarm is off.
 */
export async function runsOnSwarm(d: Pick<DeployDeps, 'swarm'>, service: ServiceRecord): Promise<boolean> {
  if (service.kind === 'database' || service.volumes.length > 0 || service.files.length > 0) return false;
  if (service.replicas <= 1 && Object.keys(service.placement).length === 0) return false;
  return d.swarm.enabled();
}

export async function deployToSwarm(d: DeployDeps, service: ServiceRecord, dep: DeploymentRecord, image: string, env: Record<string, string>, say: Say, signal: AbortSignal): Promise<void> {
  const registry = await d.registry.ensure().catch((err: unknown) => {
    throw new BuildError(`Berth's image registry could not start: ${(err as Error).message}`);
  });
  const target = registryRef(registry.address, service.id, dep.id);
  say(`Pushing ${image} to Berth's registry as ${target} (every node pulls it from there)`);
  await d.registry.pushing(() => pushImage(d.docker, image, target, registry.auth, say, signal));
  if (signal.aborted) throw new BuildError('aborted');

  const probe = service.runtimeMode === 'web' || service.runtimeMode === 'static' ? 'http' : 'tcp';
  const health = await taskHealth(d.docker, image, service.internalPort, probe, d.own.labels({ projectId: service.projectId, serviceId: service.id, deploymentId: dep.id }));
  if (health.kind === 'check') say(`Each task checks its port ${service.internalPort} with ${health.check.tool}: Swarm stops an old task only once a new one answers`);
  else if (health.kind === 'own') say(`Each task runs the image's own HEALTHCHECK: Swarm stops an old task only once a new one is healthy`);
  else say(`No health check in the tasks (${health.reason}): Swarm counts a task as started once its process runs; Caddy still sends traffic only to tasks that answer`);
  const overlay = await ensureProjectOverlay(d.docker, d.own, service.projectId);
  // a drained manager takes no network attachment: its containers stay off the overlay
  if ((await existingProjectOverlay(d.docker, d.own, service.projectId)) !== null) await connectProjectContainers(d, service.projectId, overlay);
  else
    say(
      `This server is drained: the project's containers here (databases, services with volumes) cannot join the overlay, so tasks reach them by name only once it is active again and they are redeployed`,
      'stderr',
    );
  const name = swarmServiceName(service.slug, service.id);
  const spec: SwarmServiceSpec = {
    name,
    image: target,
    env,
    labels: d.own.labels({ projectId: service.projectId, serviceId: service.id }),
    replicas: service.replicas,
    constraints: Object.entries(service.placement).map(([k, v]) => `node.labels.${k}==${v}`),
    limits: effectiveLimits(d.limits, service),
    internalPort: service.internalPort,
    network: overlay,
    alias: service.slug,
    ...(service.kind === 'image' && service.startCommand ? { cmd: ['sh', '-c', service.startCommand] } : {}),
    stopGraceSeconds: STOP_GRACE_SECONDS,
    healthCheck: health.kind === 'check' ? health.check.test : null,
    bootSeconds: Math.round(d.healthTimeoutMs / 1000),
  };
  const existing = (await listOwnedSwarmServices(d.docker, d.own, { serviceId: service.id }))[0] ?? null;
  const where = spec.constraints.length > 0 ? ` on nodes with ${spec.constraints.join(', ')}` : '';
  let id: string;
  if (existing) {
    say(`Rolling update of Swarm service ${name}: ${spec.replicas} replica(s)${where}, one task at a time, each new task started before an old one stops`);
    await updateSwarmService(d.docker, existing, spec, registry.auth);
    id = existing.id;
  } else {
    say(`Creating Swarm service ${name}: ${spec.replicas} replica(s)${where}`);
    id = await createSwarmService(d.docker, spec, registry.auth);
  }
  await d.store.deployments.update(dep.id, { containerName: name, containerId: id, upstreamPort: null });

  const rollout = await followRollout(d, service, id, target, existing !== null, say, signal);
  if (rollout.state !== 'done') {
    if (rollout.state === 'failed') say(`The rollout failed: ${rollout.reason}`, 'stderr');
    await undo(d, service, id, existing !== null, registry.auth, say);
    throw new BuildError(rollout.state === 'aborted' ? 'aborted' : `${rollout.reason}; the previous release keeps serving`);
  }
  await goLive(d, service, dep, id, say);
}

/** Back to the previous release: a service this deployment created goes; an updated one rolls back (unless Swarm already did). */
async function undo(d: DeployDeps, service: ServiceRecord, id: string, updated: boolean, auth: RegistryAuth, say: Say): Promise<void> {
  if (!updated) {
    say(`Removing Swarm service ${swarmServiceName(service.slug, service.id)}, which this deployment created`);
    await d.swarmTasks.drop(service.id);
    await removeOwnedSwarmService(d.docker, d.own, id, { serviceId: service.id });
    return;
  }
  let current = await inspectOwnedSwarmService(d.docker, d.own, id, { serviceId: service.id });
  if (current && !/^rollback/.test(current.updateState ?? '')) {
    say('Rolling the Swarm service back to the previous release');
    await rollbackSwarmService(d.docker, current, auth);
  } else say('Swarm is rolling the service back to the previous release');
  const until = Date.now() + ROLLBACK_WAIT_MS;
  while (Date.now() < until) {
    current = await inspectOwnedSwarmService(d.docker, d.own, id, { serviceId: service.id });
    if (!current || rolledBack(current)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (current && !rolledBack(current)) say(`The rollback is still under way (${current.updateState ?? 'unknown'}): Swarm finishes it`, 'stderr');
  else say('Rolled back: the previous release serves');
  await d.swarmTasks.refresh();
}

function rolledBack(s: OwnedSwarmService): boolean {
  return s.updateState === 'rollback_completed' || s.updateState === 'rollback_paused' || s.updateState === 'completed';
}

async function goLive(d: DeployDeps, service: ServiceRecord, dep: DeploymentRecord, swarmServiceId: string, say: Say): Promise<void> {
  const previous = (await d.store.deployments.listByService(service.id)).filter((x) => x.status === 'running' && x.id !== dep.id);
  // Caddy's pool takes the answering tasks now (the watcher would within a second anyway)
  await d.swarmTasks.refresh();
  say(`Caddy routes ${service.hostPort !== null ? `the host port ${service.hostPort} and ` : ''}the service's hostnames to its ${service.replicas} task(s)`);
  if (previous.length > 0) say('Previous deployment superseded');
  say(`Deployment is live${service.hostPort !== null ? ` on http://127.0.0.1:${service.hostPort}` : ''}`);
  const now = d.clock.now();
  if (!(await setStatus(d, dep, 'running', { finishedAt: now }))) throw new BuildError('the deployment was ended elsewhere before it went live');
  await setServiceState(d, service.id, { status: 'active', reachable: true, lastDeployedAt: now, updatedAt: now });
  // every task's lines from this deployment's start (its new tasks' boot included), prefixed with node and task
  const since = Math.floor(Date.parse(dep.startedAt ?? dep.createdAt) / 1000);
  await d.runtimeLogs.followSwarm(service.id, dep.id, swarmServiceId, since).catch((err: unknown) => d.log(`following the logs of Swarm service ${swarmServiceId}`, err));
  for (const old of previous) await setStatus(d, old, 'superseded', {});
  // a previous single container goes once its requests finished; the Swarm service itself stays
  retireInBackground(d, service.id, previous, true, swarmServiceId);
}

/**
 * Puts the project's containers (its databases, its single-container services) on the overlay
 * under their slugs, so replicated tasks on any node reach them by name as containers do on the
 * project's bridge. Idempotent; Swarm's own task containers are already on it.
 */
export async function connectProjectContainers(d: DeployDeps, projectId: string, overlay: string): Promise<void> {
  const slugs = new Map((await d.store.services.list([projectId])).map((s) => [s.id, s.slug]));
  for (const c of await listOwnedContainers(d.docker, d.own, { projectId })) {
    const slug = slugs.get(c.labels[LABEL_SERVICE] ?? '');
    if (!c.running || !slug || c.labels['com.docker.swarm.task.id']) continue;
    await connectToOverlay(d.docker, overlay, c.id, slug).catch((err: unknown) => d.log(`connecting ${c.name} to ${overlay}`, err));
  }
}
