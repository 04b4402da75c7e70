// The one way a deployment gets an image a tenant named (an image service's dockerImage, and each
// FROM / COPY --from of a build, pulled here before the build starts so the builder finds it
// locally). The name is already known to be a repository, not an ID (core/image-refs.ts). A local
// image under that name is used only when it is a plain image (pulled, or put there by the
// operator) or one Berth built for this very service: an image carrying Berth's build labels for
// another service is treated as absent, so it is pulled like any missing name. The build log then
// reads the same ("Pulling ...", then the registry's answer) whether or not another tenant's image
// is here, and that image itself is never used.
import type Docker from 'dockerode';
import { BuildError } from '../core/build-error.js';
import { pullImage, type LineSink } from './images.js';
import { LABEL_BUILD, LABEL_IMAGE_OWNER, LABEL_SERVICE, type Labels, type Ownership } from './labels.js';

interface ImageFacts {
  labels: Labels;
  onBuild: string[];
}

async function inspectImage(docker: Docker, ref: string): Promise<ImageFacts | null> {
  try {
    const info = await docker.getImage(ref).inspect();
    return { labels: (info.Config?.Labels as Labels | null) ?? {}, onBuild: (info.Config?.OnBuild as string[] | null) ?? [] };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
}

/** True when Berth built the image for a service (its build labels), and that service is not `serviceId` of this daemon. */
function builtForAnotherService(labels: Labels, own: Ownership, serviceId: string): boolean {
  const built = labels[LABEL_IMAGE_OWNER] !== undefined || labels[LABEL_BUILD] !== undefined || labels[LABEL_SERVICE] !== undefined;
  return built && !own.owns(labels, { serviceId });
}

export interface ReadyImage {
  /** The image's ONBUILD triggers: a FROM runs them in the build. */
  onBuild: string[];
}

/**
 * Makes `ref` usable for `serviceId`: present locally as a plain image (or one of the service's
 * own), else pulled. Throws BuildError when it cannot be pulled, or when what the registry sent
 * carries Berth's build labels of another service.
 */
export async function readyImage(docker: Docker, own: Ownership, ref: string, serviceId: string, say: LineSink, signal: AbortSignal, purpose = ''): Promise<ReadyImage> {
  const local = await inspectImage(docker, ref);
  if (local && !builtForAnotherService(local.labels, own, serviceId)) {
    say(`Using image ${ref} (present locally)${purpose}`, 'stdout');
    return { onBuild: local.onBuild };
  }
  say(`Pulling ${ref}${purpose}`, 'stdout');
  await pullImage(docker, ref, say, signal);
  const pulled = await inspectImage(docker, ref);
  if (!pulled) throw new BuildError(`image ${ref} is not present locally and could not be pulled`);
  if (builtForAnotherService(pulled.labels, own, serviceId)) {
    throw new BuildError(`image ${ref} carries the labels Berth puts on the images it builds for a service (${LABEL_IMAGE_OWNER}); Berth uses such an image only for the service it was built for`);
  }
  return { onBuild: pulled.onBuild };
}
