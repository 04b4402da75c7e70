// Garbage collection of Berth's registry: every deployment of a Swarm-backed service pushes one tag
// (`berth/<serviceId>:<deploymentId>`), and without this the registry's volume only ever grows.
// The manifests of tags no rollback needs go (the same deployments the manager's local images
// keep: anything in progress or live plus the last N superseded), so do every tag of a service that
// no longer exists; a digest a kept tag or a Swarm spec (or its previous spec, Docker's rollback)
// names always stays. Then the registry's own `garbage-collect` frees the blobs no manifest names
// any more. Only `berth/` repositories are touched (the tool images under `berth-tools/` stay), and
// no push runs meanwhile (a collection would delete the blobs of an upload in flight).
import type Docker from 'dockerode';
import { execText } from '../docker/exec.js';
import { RegistryApi } from '../docker/registry-api.js';
import type { ImageRegistryPort } from '../core/ports/swarm.js';

const CONFIG = '/etc/docker/registry/config.yml';
const STORAGE = '/var/lib/registry';
const SERVICE_REPO = /^berth\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export interface RegistryGcDeps {
  docker: Docker;
  registry: Pick<ImageRegistryPort, 'whileNoPush'>;
  /** The deployment ids (= tags) a service keeps for rollback; null when the service is gone. */
  keptTags(serviceId: string): Promise<Set<string> | null>;
  /** The image digests the service's Swarm specs and their previous specs name. */
  specDigests(serviceId: string): Promise<string[]>;
}

export interface RegistryGcResult {
  repositories: number;
  deletedManifests: number;
  /** What the volume shrank by (du), or null when it could not be measured. */
  freedBytes: number | null;
}

/** One collection; null when the registry is not running (Swarm off, or never used). */
export function collectRegistryGarbage(d: RegistryGcDeps): Promise<RegistryGcResult | null> {
  return d.registry.whileNoPush(async ({ address, auth, containerId, caPem }) => {
    const api = new RegistryApi(address, auth, caPem);
    const repos = (await api.repositories()).filter((r) => SERVICE_REPO.test(r));
    let deletedManifests = 0;
    for (const repo of repos) deletedManifests += await pruneRepository(d, api, repo);
    const before = await usedBytes(d.docker, containerId);
    await execText(d.docker, containerId, { tool: 'registry garbage-collect', cmd: ['registry', 'garbage-collect', CONFIG] });
    const after = await usedBytes(d.docker, containerId);
    return { repositories: repos.length, deletedManifests, freedBytes: before === null || after === null ? null : Math.max(0, before - after) };
  });
}

/** Deletes the manifests of `repo` no kept tag or spec names; answers how many went. */
async function pruneRepository(d: RegistryGcDeps, api: RegistryApi, repo: string): Promise<number> {
  const serviceId = SERVICE_REPO.exec(repo)![1]!;
  const kept = await d.keptTags(serviceId);
  const tags = await api.tags(repo);
  const keepDigests = new Set(kept === null ? [] : await d.specDigests(serviceId));
  const drop = new Set<string>();
  for (const tag of tags) {
    const digest = await api.digest(repo, tag);
    if (digest === null) continue;
    if (kept?.has(tag)) keepDigests.add(digest);
    else drop.add(digest);
  }
  let deleted = 0;
  for (const digest of drop) {
    // one image pushed under two tags has one digest: deleting it would take the kept tag too
    if (keepDigests.has(digest)) continue;
    await api.deleteManifest(repo, digest);
    deleted++;
  }
  return deleted;
}

async function usedBytes(docker: Docker, containerId: string): Promise<number | null> {
  try {
    const out = await execText(docker, containerId, { tool: 'du', cmd: ['du', '-sk', STORAGE] }, 4096);
    const kb = Number(out.trim().split(/\s+/)[0]);
    return Number.isFinite(kb) ? kb * 1024 : null;
  } catch {
    return null;
  }
}
