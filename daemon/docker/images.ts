// Images: build from a tar context, pull when missing, remove only what Berth labelled.
import type { RegistryAuth } from '../core/ports/swarm.js';
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { BuildError } from '../core/build-error.js';
import { parseBuildStream, type BuildOutcome } from './build-stream.js';
import type { Labels, Ownership } from './labels.js';

const CPU_PERIOD_US = 100_000;

export type LineSink = (line: string, stream: 'stdout' | 'stderr') => void;

export interface BuildImageRequest {
  context: Readable;
  dockerfile: string;
  tag: string;
  /**
   * The ownership labels the Dockerfile sets after each FROM (builder/context.ts), which the built
   * image must still carry: a later LABEL of the repository's own Dockerfile could change them.
   */
  labels: Labels;
  buildArgs?: Record<string, string>;
  /** Memory (MiB, no swap beyond it) and CPUs each build step's container may use. */
  limits: { memoryMb: number; cpus: number };
  signal: AbortSignal;
  onLine: LineSink;
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
    // no `labels` here: the classic builder appends each as an uncached LABEL step; Berth's
    // ownership labels are in the Dockerfile it builds, after each FROM (builder/context.ts)
    buildargs: req.buildArgs ?? {},
    rm: true,
    forcerm: true,
    // the classic builder applies these to every RUN step's container (it has no PIDs limit)
    memory: req.limits.memoryMb * 1024 * 1024,
    memswap: req.limits.memoryMb * 1024 * 1024,
    cpuperiod: CPU_PERIOD_US,
    cpuquota: Math.round(req.limits.cpus * CPU_PERIOD_US),
    // also while the context uploads, before the Engine answers
    abortSignal: req.signal,
  })) as unknown as Readable;
  const onAbort = () => body.destroy(new BuildError('build aborted'));
  req.signal.addEventListener('abort', onAbort, { once: true });
  if (req.signal.aborted) onAbort();
  let outcome: BuildOutcome;
  try {
    outcome = await parseBuildStream(body, req.onLine, req.busy);
  } catch (err) {
    if (req.signal.aborted) throw new BuildError('build aborted');
    throw err;
  } finally {
    req.signal.removeEventListener('abort', onAbort);
  }
  await requireLabels(docker, req.tag, req.labels);
  return outcome;
}

/**
 * Fails the build when the image tagged `tag` (this build's own tag) lacks any of `labels`, and
 * removes that tag (never by force: only what nothing else holds goes). Berth's labels come first
 * in the Dockerfile, so a repository's own `LABEL dev.berth...` would otherwise make its image
 * claim another owner, or none that pruning and clean-up would recognise.
 */
async function requireLabels(docker: Docker, tag: string, labels: Labels): Promise<void> {
  const found = ((await docker.getImage(tag).inspect()).Config?.Labels as Labels | null) ?? {};
  const changed = Object.keys(labels).filter((key) => found[key] !== labels[key]);
  if (changed.length === 0) return;
  await docker
    .getImage(tag)
    .remove()
    .catch(() => undefined);
  throw new BuildError(`the Dockerfile sets ${changed.join(' and ')}, labels Berth keeps for itself; remove them from the Dockerfile`);
}

/** Pulls `ref`. Aborting closes the connection (also before the Engine answers, while it reaches the registry), which stops the pull. */
export async function pullImage(docker: Docker, ref: string, onLine: LineSink, signal: AbortSignal, auth?: RegistryAuth): Promise<void> {
  if (signal.aborted) throw new BuildError('pull aborted');
  let stream: Readable;
  try {
    stream = (await docker.pull(ref, { abortSignal: signal, ...(auth ? { authconfig: auth } : {}) })) as Readable;
  } catch (err) {
    if (signal.aborted) throw new BuildError('pull aborted');
    throw new BuildError(`image ${ref} is not present locally and could not be pulled: ${(err as Error).message}`);
  }
  const onAbort = () => stream.destroy(new BuildError('pull aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
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
