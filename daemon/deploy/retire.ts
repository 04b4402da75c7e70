// After a deployment went live: the deployments it replaced are retired (a container once Caddy's
// in-flight requests on it finished; a Swarm service once its pool is out of Caddy), then the images
// and config file snapshots beyond what a rollback needs go: on the manager, and for a Swarm-backed
// service on every node too (docker/node-prune.ts).
import type { DeploymentRecord } from '../core/records.js';
import { removeOwnedContainer } from '../docker/containers.js';
import { removeOwnedImage } from '../docker/images.js';
import { registryRepo, untagPushed } from '../docker/image-push.js';
import { pruneOnNodes } from '../docker/node-prune.js';
import { toolImageInRegistry } from '../docker/tool-images.js';
import { listOwnedSwarmServices, removeOwnedSwarmService } from '../docker/swarm-services.js';
import type { DeployDeps } from './context.js';
import { drained } from './drain.js';
import { pruneDeploymentFiles } from './service-files.js';

/** How long an old container may keep finishing requests after a swap. */
const DRAIN_GRACE_MS = 30_000;
/** How long the pruning job on the Swarm nodes may take before it is removed anyway. */
const NODE_PRUNE_TIMEOUT_MS = 120_000;

/** Retires `previous` in the background, then prunes; every failure is logged, none escapes. */
export function retireInBackground(d: DeployDeps, serviceId: string, previous: DeploymentRecord[], drain: boolean, keepSwarmService: string | null = null): void {
  void retire(d, serviceId, previous, drain, keepSwarmService)
    .catch((err: unknown) => d.log(`retiring old deployments of ${serviceId}`, err))
    .then(() => pruneImages(d, serviceId))
    .then(() => pruneFiles(d, serviceId))
    .then(() => prunePushedTags(d, serviceId))
    .catch((err: unknown) => d.log(`pruning old images of ${serviceId}`, err))
    .then(() => pruneNodes(d, serviceId, previous, keepSwarmService))
    .catch((err: unknown) => d.log(`pruning old images of ${serviceId} on the Swarm nodes`, err));
}

/**
 * The deployments whose images and files a rollback may need: anything in progress or live, plus
 * the last N superseded (N: `keepImages`, the project's quota maxImagesPerService). Null when the
 * service is gone.
 */
export async function rollbackDeploymentIds(d: Pick<DeployDeps, 'store' | 'keepImages'>, serviceId: string): Promise<Set<string> | null> {
  const service = await d.store.services.get(serviceId);
  if (!service) return null;
  const keep = await d.keepImages(service.projectId);
  const deployments = await d.store.deployments.listByService(serviceId);
  const ids = new Set(deployments.filter((x) => ['queued', 'building', 'running'].includes(x.status)).map((x) => x.id));
  const wentLive = deployments.filter((x) => x.status === 'superseded').sort((a, b) => (b.finishedAt ?? b.createdAt).localeCompare(a.finishedAt ?? a.createdAt));
  for (const x of wentLive.slice(0, keep)) ids.add(x.id);
  return ids;
}

/**
 * The manager's local tags of images pushed to Berth's registry (`<registry>/berth/<serviceId>:<deploymentId>`,
 * docker/image-push.ts) beyond those a rollback needs (the same N as pruneImages, plus anything in
 * progress or live) are untagged; the layers stay while another tag uses them. The registry's own
 * copies go in its daily garbage collection (deploy/registry-gc.ts), by the same rule.
 */
async function prunePushedTags(d: DeployDeps, serviceId: string): Promise<void> {
  const kept = await rollbackDeploymentIds(d, serviceId);
  if (!kept) return;
  const images = await d.docker.listImages({ filters: { reference: [`*/berth/${serviceId}`] } });
  for (const tag of images.flatMap((i) => i.RepoTags ?? [])) {
    if (!tag.includes(`/berth/${serviceId}:`) || kept.has(tag.slice(tag.lastIndexOf(':') + 1))) continue;
    await untagPushed(d.docker, tag);
  }
}

/**
 * For a Swarm-backed service (Swarm on, and the new or a replaced deployment ran as its Swarm
 * service): every node removes the images of the service's repository whose digest is not kept, in
 * one GlobalJob (docker/node-prune.ts). Digests, because a node holds what Swarm pulled by digest
 * untagged.
 */
async function pruneNodes(d: DeployDeps, serviceId: string, previous: DeploymentRecord[], keepSwarmService: string | null): Promise<void> {
  let ranOnSwarm = keepSwarmService !== null;
  for (const dep of previous) ranOnSwarm ||= await d.swarmTasks.isSwarmDeployment(dep);
  if (!ranOnSwarm || !(await d.swarm.enabled())) return;
  const ids = await rollbackDeploymentIds(d, serviceId);
  if (!ids) return;
  const registry = await d.registry.ensure();
  const repo = registryRepo(registry.address, serviceId);
  const keep = await keptDigests(d, serviceId, repo, ids);
  const image = await d.registry.pushing((r) => toolImageInRegistry(d.docker, 'docker-cli', d.dockerCliImage, r, (m) => d.log(m)));
  await pruneOnNodes(d.docker, d.own, { serviceId, repo, keep, image, auth: registry.auth, timeoutMs: NODE_PRUNE_TIMEOUT_MS }, (m) => d.log(m));
}

/**
 * The digests every node keeps: the manager's RepoDigests entry in `repo` of each kept deployment's
 * pushed tag, and the digests the service's Swarm spec and its previous spec name (what Docker's
 * rollback returns to).
 */
async function keptDigests(d: DeployDeps, serviceId: string, repo: string, ids: Set<string>): Promise<string[]> {
  const digests = new Set<string>();
  for (const id of ids) {
    const info = await d.docker
      .getImage(`${repo}:${id}`)
      .inspect()
      .catch((err: { statusCode?: number }) => {
        // never pushed (a container deployment, or one that failed before its push); any other error stops the pruning
        if (err.statusCode === 404) return null;
        throw err;
      });
    for (const ref of info?.RepoDigests ?? []) if (ref.startsWith(`${repo}@`)) digests.add(ref.slice(repo.length + 1));
  }
  for (const digest of await swarmSpecDigests(d, serviceId)) digests.add(digest);
  return [...digests];
}

/** The image digests the service's Swarm specs and their previous specs (what Docker's rollback returns to) name. */
export async function swarmSpecDigests(d: Pick<DeployDeps, 'docker' | 'own'>, serviceId: string): Promise<string[]> {
  const digests: string[] = [];
  for (const s of await listOwnedSwarmServices(d.docker, d.own, { serviceId })) {
    for (const image of [s.image, s.previousImage]) if (image?.includes('@')) digests.push(image.slice(image.lastIndexOf('@') + 1));
  }
  return digests;
}

async function retire(d: DeployDeps, serviceId: string, old: DeploymentRecord[], drain: boolean, keepSwarmService: string | null): Promise<void> {
  for (const dep of old) {
    if (!dep.containerId || dep.containerId === keepSwarmService) continue;
    // a Swarm-backed deployment (no port of its own): its pool leaves Caddy first, then the service goes
    if (dep.upstreamPort === null && (await d.swarmTasks.isSwarmDeployment(dep))) {
      await d.swarmTasks.drop(serviceId);
      await removeOwnedSwarmService(d.docker, d.own, dep.containerId, { serviceId });
      continue;
    }
    if (drain && dep.upstreamPort !== null) await drained(dep.upstreamPort, DRAIN_GRACE_MS);
    await removeOwnedContainer(d.docker, d.own, dep.containerId, { serviceId });
  }
}

/**
 * Keeps the images of the service's last N successful deployments (N: the project's quota
 * maxImagesPerService; what a rollback can run) and removes older ones that Berth built for it
 * (labels checked), oldest first. The live image counts as one of the N; an image that a live,
 * queued or building deployment uses (a rollback under way) always stays.
 */
async function pruneImages(d: DeployDeps, serviceId: string): Promise<void> {
  const service = await d.store.services.get(serviceId);
  if (!service) return;
  const keep = await d.keepImages(service.projectId);
  const deployments = await d.store.deployments.listByService(serviceId);
  const inUse = new Set(deployments.filter((x) => ['queued', 'building', 'running'].includes(x.status) && x.imageTag).map((x) => x.imageTag!));
  const wentLive = deployments
    .filter((x) => (x.status === 'running' || x.status === 'superseded') && x.imageTag && x.buildMethod !== 'image')
    .sort((a, b) => (b.finishedAt ?? b.createdAt).localeCompare(a.finishedAt ?? a.createdAt));
  const kept = new Set<string>();
  for (const x of wentLive) {
    const tag = x.imageTag!;
    if (kept.has(tag)) continue;
    // the live image counts as one of the N; one in use stays even beyond them
    if (kept.size < keep || inUse.has(tag)) {
      kept.add(tag);
      continue;
    }
    if (await removeOwnedImage(d.docker, d.own, tag, { serviceId }))
      d.log(`removed image ${tag} of service ${serviceId} (older than the last ${keep} successful deployments, the project's quota maxImagesPerService)`);
  }
}

/** Keeps the config file snapshots of the deployments that may run again (in progress, live, or among the last ones a rollback can go back to). */
async function pruneFiles(d: DeployDeps, serviceId: string): Promise<void> {
  const ids = await rollbackDeploymentIds(d, serviceId);
  if (ids) pruneDeploymentFiles(d, serviceId, ids);
}
