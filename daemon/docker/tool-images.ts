// The images Berth's own helpers run from on every Swarm node (the docker CLI of the image-pruning
// job, the node engine relay's Node.js), and the database images of databases created on a worker: workers have no internet of their own, so each is pushed
// once to Berth's registry as `<registry>/berth-tools/<name>:<image id, 12 hex>` and pulled from
// there.
import type Docker from 'dockerode';
import type { RegistryAuth } from '../core/ports/swarm.js';
import { pushImage } from './image-push.js';
import { imageExists, pullImage } from './images.js';

/** `localImage` as workers can pull it: pulled on the manager when it is missing there, pushed unless the registry has it already. */
export async function toolImageInRegistry(
  docker: Docker,
  name: 'docker-cli' | 'node' | `database-${string}`,
  localImage: string,
  registry: { address: string; auth: RegistryAuth },
  log: (message: string) => void,
): Promise<string> {
  const signal = new AbortController().signal;
  if (!(await imageExists(docker, localImage))) await pullImage(docker, localImage, (line) => log(`pulling ${localImage}: ${line}`), signal);
  const id = ((await docker.getImage(localImage).inspect()) as { Id: string }).Id.replace(/^sha256:/, '').slice(0, 12);
  const target = `${registry.address}/berth-tools/${name}:${id}`;
  // the Engine asks the registry for the manifest: 200 when it is there
  const present = await docker
    .getImage(target)
    .distribution({ authconfig: registry.auth })
    .then(() => true)
    .catch(() => false);
  if (!present) await pushImage(docker, localImage, target, registry.auth, (line, stream) => stream === 'stderr' && log(`pushing ${target}: ${line}`), signal);
  return target;
}
