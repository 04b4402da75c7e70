// What a database created on another Swarm node needs before its container can start there: its
// engine's image on that node (pushed to Berth's registry on the manager, pulled by the node: a
// worker has no copy of the manager's images and maybe no internet), and the project's overlay
// network, which the node's container joins under the service's slug. The project's containers on
// the manager join the overlay too, so every app reaches the database by name as on one server.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuildError } from '../core/build-error.js';
import type { ServiceRecord } from '../core/records.js';
import { pullImage } from '../docker/images.js';
import { ensureProjectOverlay } from '../docker/swarm-services.js';
import { tarOfFiles } from '../docker/tar-files.js';
import { toolImageInRegistry } from '../docker/tool-images.js';
import type { DeployDeps } from './context.js';
import type { ServiceHost } from './service-host.js';
import { connectProjectContainers } from './swarm-deploy.js';

type Say = (line: string, stream?: 'stdout' | 'stderr') => void;

/** The image as the node pulled it, and the overlay network the container runs on. */
export async function prepareNode(d: DeployDeps, service: ServiceRecord, host: ServiceHost, image: string, say: Say, signal: AbortSignal): Promise<{ image: string; network: string }> {
  const registry = await d.registry.ensure().catch((err: unknown) => {
    throw new BuildError(`Berth's image registry could not start: ${(err as Error).message}`);
  });
  say(`This database runs on node ${host.address}: pushing ${image} to Berth's registry for it`);
  const target = await d.registry.pushing((r) => toolImageInRegistry(d.docker, `database-${service.databaseEngine!}`, image, r, (m) => say(m, 'stderr')));
  if (signal.aborted) throw new BuildError('aborted');
  say(`Pulling ${target} on the node`);
  await pullImage(host.docker, target, (line, stream) => stream === 'stderr' && say(line, stream), signal, registry.auth);
  const network = await ensureProjectOverlay(d.docker, d.own, service.projectId);
  await connectProjectContainers(d, service.projectId, network);
  say(`The container joins the project's overlay network as ${service.slug}: the project's apps reach it by name from every node`);
  return { image: target, network };
}

/** A folder of this server's disk (TLS files) as a tar archive to extract at `target` in a container on another node. */
export function folderArchive(source: string, target: string): Buffer {
  const files = readdirSync(source, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => ({ name: e.name, content: readFileSync(join(source, e.name)), mode: e.name.endsWith('.key') ? 0o600 : 0o644 }));
  return tarOfFiles(target.replace(/^\/+/, ''), files);
}
