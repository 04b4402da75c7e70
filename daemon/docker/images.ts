// Images: build from a tar context, pull when missing, remove only what Berth labelled.
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { BuildError } from '../build/build-error.js';
import { parseBuildStream, type BuildOutcome } from './build-stream.js';
import type { Labels, Ownership } from './labels.js';

export type LineSink = (line: string, stream: 'stdout' | 'stderr') => void;

export interface BuildImageRequest {
  context: Readable;
  dockerfile: string;
  tag: string;
  labels: Labels;
  buildArgs?: Record<string, string>;
  signal: AbortSignal;
  onLine: LineSink;
  /** Each intermediate image the build commits, as it is committed (for cleanup after an abort). */
  onStep?: (imageId: string) => void;
  /** A promise while the build log is behind (see LogBook.busy): the build's output is not read meanwhile. */
  busy?: () => Promise<void> | null;
}

export async function imageExists(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
}

/** Streams the build through the Engine's API. Aborting closes the connection, which stops the build. */
export async function buildImage(docker: Docker, req: BuildImageRequest): Promise<BuildOutcome> {
  if (req.signal.aborted) throw new BuildError('build aborted');
  const body = (await docker.buildImage(req.context, {
    t: req.tag,
    dockerfile: req.dockerfile,
    labels: req.labels,
    buildargs: req.buildArgs ?? {},
    rm: true,
    forcerm: true,
  })) as unknown as Readable;
  const onAbort = () => body.destroy(new BuildError('build aborted'));
  req.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await parseBuildStream(body, req.onLine, req.onStep, req.busy);
  } catch (err) {
    if (req.signal.aborted) throw new BuildError('build aborted');
    throw err;
  } finally {
    req.signal.removeEventListener('abort', onAbort);
  }
}

export async function pullImage(docker: Docker, ref: string, onLine: LineSink, signal: AbortSignal): Promise<void> {
  let stream: Readable;
  try {
    stream = (await docker.pull(ref)) as Readable;
  } catch (err) {
    throw new BuildError(`image ${ref} is not present locally and could not be pulled: ${(err as Error).message}`);
  }
  const onAbort = () => stream.destroy(new BuildError('pull aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(new BuildError(`pulling ${ref} failed: ${err.message}`)) : resolve()),
        (event: { status?: string; id?: string; error?: string }) => {
          if (event.error) onLine(event.error, 'stderr');
          else if (event.status && !event.status.startsWith('Downloading') && !event.status.startsWith('Extracting')) {
            onLine(`${event.id ? event.id + ': ' : ''}${event.status}`, 'stdout');
          }
        },
      );
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Removes an image only if its labels prove Berth built it for this service. */
export async function removeOwnedImage(docker: Docker, own: Ownership, ref: string, owner: { serviceId: string }): Promise<boolean> {
  let labels: Labels | null;
  try {
    labels = ((await docker.getImage(ref).inspect()).Config?.Labels as Labels | null) ?? null;
  } catch {
    return false;
  }
  if (!own.owns(labels, owner)) return false;
  try {
    await docker.getImage(ref).remove({ force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the unlabelled layer images an interrupted build committed. They are ours because they
 * came out of our own build stream. Right after an abort the Engine may still be tearing down the
 * step's container, which holds the newest layer; that case is retried for a few seconds. An id
 * that another image still needs is left alone.
 */
export async function removeIntermediateImages(docker: Docker, ids: readonly string[], retryForMs = 15_000): Promise<void> {
  const deadline = Date.now() + retryForMs;
  for (const id of [...ids].reverse()) {
    // A step line also names the base image of each FROM and cached layers: a tagged image is
    // never ours to remove (a user's pulled `node:20` must survive a failed build).
    if (await isTagged(docker, id)) continue;
    for (;;) {
      try {
        await docker.getImage(id).remove({ noprune: false });
        break;
      } catch (err) {
        const e = err as { statusCode?: number; message?: string };
        const inUseByContainer = e.statusCode === 409 && /being used by|used by running container|stopped container/.test(e.message ?? '');
        if (!inUseByContainer || Date.now() > deadline) break; // gone, needed by another image, or out of time
        await new Promise((r) => setTimeout(r, 300));
      }
    }
  }
}

async function isTagged(docker: Docker, id: string): Promise<boolean> {
  try {
    const info = await docker.getImage(id).inspect();
    return (info.RepoTags ?? []).some((t) => t !== '<none>:<none>');
  } catch {
    return false; // already gone
  }
}
