// Pushing a deployment's image to Berth's registry on the manager, so that every Swarm node can
// pull it: built and pulled images alike (an image that exists only on the manager must still
// run on workers). Progress goes to the deployment log, and a push error verbatim.
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { BuildError } from '../core/build-error.js';
import type { RegistryAuth } from '../core/ports/swarm.js';
import type { LineSink } from './images.js';

/** `<registry>/berth/<serviceId>:<deploymentId>`: one repository per service, one tag per deployment. */
export function registryRef(registry: string, serviceId: string, deploymentId: string): string {
  return `${registryRepo(registry, serviceId)}:${deploymentId}`;
}

/** `<registry>/berth/<serviceId>`: the repository of a service's pushed images. */
export function registryRepo(registry: string, serviceId: string): string {
  return `${registry}/berth/${serviceId}`;
}

/** Tags `localRef` as `target` and pushes it with `auth`. Layer progress is summarised (one line per layer state, not per byte). */
export async function pushImage(docker: Docker, localRef: string, target: string, auth: RegistryAuth, onLine: LineSink, signal: AbortSignal): Promise<void> {
  const colon = target.lastIndexOf(':');
  const repo = target.slice(0, colon);
  const tag = target.slice(colon + 1);
  await docker.getImage(localRef).tag({ repo, tag });
  let stream: Readable;
  try {
    stream = (await docker.getImage(target).push({ authconfig: auth, abortSignal: signal })) as Readable;
  } catch (err) {
    throw new BuildError(`pushing ${target} to Berth's registry failed: ${(err as Error).message}`);
  }
  const onAbort = () => stream.destroy(new BuildError('push aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      let failed: string | null = null;
      docker.modem.followProgress(
        stream,
        (err: Error | null) => {
          if (err || failed) reject(new BuildError(`pushing ${target} to Berth's registry failed: ${failed ?? err!.message}`));
          else resolve();
        },
        (event: { status?: string; id?: string; error?: string; progressDetail?: { current?: number; total?: number } }) => {
          if (event.error) {
            failed = event.error;
            onLine(event.error, 'stderr');
          } else if (event.status && event.status !== 'Pushing' && event.status !== 'Waiting') {
            onLine(`${event.id ? event.id + ': ' : ''}${event.status}`, 'stdout');
          }
        },
      );
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Removes a pushed tag from this Engine (the registry keeps its copy; an untag never deletes another tag's layers). */
export async function untagPushed(docker: Docker, target: string): Promise<void> {
  await docker
    .getImage(target)
    .remove({ noprune: true })
    .catch(() => undefined);
}
