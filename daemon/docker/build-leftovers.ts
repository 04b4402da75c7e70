// What builds leave behind: the classic builder keeps the layers a failed or aborted build
// committed, and after a multi-stage build the earlier stages' results (dangling images). Berth
// finds them only through the build label every layer of its builds carries (LABEL_BUILD, put
// after each FROM of the Dockerfile it builds), never through ids printed in the build's output,
// which a RUN step controls. Only untagged images are touched, one at a time without pruning
// parents, and the Engine refuses any that another image or a container still needs: base
// images, the live image and its layers, another service's images all stay.
import type Docker from 'dockerode';
import type { Ownership } from './labels.js';

/** Removes the untagged images labelled as this service's build layers; returns how many went. */
export async function removeBuildLeftovers(docker: Docker, own: Ownership, serviceId: string, retryForMs = 15_000): Promise<number> {
  const images = await docker.listImages({ all: true, filters: { label: [own.buildLabel(serviceId)] } });
  let left = images.filter((img) => (img.RepoTags ?? []).every((t) => t === '<none>:<none>')).map((img) => img.Id);
  const deadline = Date.now() + retryForMs;
  let removed = 0;
  for (let pass = 0; left.length > 0 && pass <= images.length; pass++) {
    const next: string[] = [];
    let inUse = false;
    for (const id of left) {
      const outcome = await removeOne(docker, id);
      if (outcome === 'removed') removed++;
      else if (outcome === 'needed')
        next.push(id); // a child comes first, in a later pass
      else if (outcome === 'in-use') {
        inUse = true;
        next.push(id);
      }
    }
    if (next.length === left.length) {
      // no progress: a container still holds one (right after an abort the Engine may still be
      // tearing down the step's container), or another image needs them for good
      if (!inUse || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    left = next;
  }
  return removed;
}

async function removeOne(docker: Docker, id: string): Promise<'removed' | 'needed' | 'in-use' | 'gone'> {
  try {
    await docker.getImage(id).remove({ noprune: true });
    return 'removed';
  } catch (err) {
    const e = err as { statusCode?: number; message?: string };
    if (e.statusCode === 404) return 'gone';
    if (e.statusCode === 409 && /being used by|used by running container|stopped container/.test(e.message ?? '')) return 'in-use';
    return 'needed';
  }
}
