// `node dist/daemon/purge.js`: used by `install.sh --uninstall --purge` (with the daemon stopped)
// to remove every Docker object this installation created: containers, volumes, networks and the
// images it built. Each one is removed only when its labels carry this data dir's instance id, so
// another Berth on the same Engine (or anything else) is never touched. Images pulled from a
// registry (database engines, base images) are not Berth's and stay.
import { existsSync } from 'node:fs';
import type Docker from 'dockerode';
import { readConfig } from './config.js';
import { connectDocker } from './docker/client.js';
import { LABEL_IMAGE_OWNER, Ownership, type Labels } from './docker/labels.js';
import { openDataDir } from './runtime.js';

interface Removed {
  containers: number;
  volumes: number;
  networks: number;
  images: number;
}

export async function purgeOwnedDockerObjects(docker: Docker, own: Ownership): Promise<Removed> {
  const removed: Removed = { containers: 0, volumes: 0, networks: 0, images: 0 };
  const filters = own.filter({});
  for (const c of await docker.listContainers({ all: true, filters })) {
    if (!own.owns(c.Labels, {})) continue;
    await docker.getContainer(c.Id).remove({ force: true, v: true });
    removed.containers++;
  }
  const volumes = (await docker.listVolumes({ filters })) as { Volumes?: { Name: string; Labels?: Labels | null }[] | null };
  for (const v of volumes.Volumes ?? []) {
    if (!own.owns(v.Labels, {})) continue;
    await docker.getVolume(v.Name).remove();
    removed.volumes++;
  }
  for (const n of await docker.listNetworks({ filters })) {
    if (!own.owns(n.Labels as Labels | undefined, {})) continue;
    await docker.getNetwork(n.Id).remove();
    removed.networks++;
  }
  // Built images carry one combined owner label (see labels.ts), so the filter is on its presence.
  // Every layer of Berth's builds carries it: a layer that another owned image still needs (409)
  // goes with that image, or in a later pass once that image is gone.
  for (let progress = true; progress; ) {
    progress = false;
    for (const img of await docker.listImages({ all: true, filters: { label: [LABEL_IMAGE_OWNER] } })) {
      if (!own.owns(img.Labels, {})) continue;
      try {
        await docker.getImage(img.Id).remove({ force: true });
        removed.images++;
        progress = true;
      } catch (err) {
        const status = (err as { statusCode?: number }).statusCode;
        if (status !== 404 && status !== 409) throw err; // 404: a parent removed with its child
      }
    }
  }
  return removed;
}

async function main(): Promise<void> {
  const config = readConfig();
  if (!existsSync(config.dataDir)) throw new Error(`no data dir at ${config.dataDir}`);
  const store = await openDataDir(config.dataDir);
  let instance: string | null;
  try {
    instance = await store.settings.get('instanceId');
  } finally {
    await store.close();
  }
  if (!instance) {
    process.stdout.write('this data dir never ran a daemon: no Docker objects to remove\n');
    return;
  }
  const r = await purgeOwnedDockerObjects(connectDocker(config.dockerSocket), new Ownership(instance));
  process.stdout.write(`removed ${r.containers} containers, ${r.volumes} volumes, ${r.networks} networks, ${r.images} images of Berth instance ${instance}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`berth purge: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
