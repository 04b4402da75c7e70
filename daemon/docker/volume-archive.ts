// A volume's contents as a tar through the Engine's archive API, without any tool in an image: a
// helper container (never started, role `one-off`, ownership labels) mounts the volume at
// VOLUME_MOUNT; `getArchive` streams the tar out of it and `putArchive` extracts one into it.
// Emptying a volume before a restore is the one step the archive API cannot do: a short helper
// container runs `find <mount> -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +` (argv, no shell; not
// `-delete`, which some busybox builds lack) from the service's image, as root; `emptyingTool`
// checks beforehand, read-only, that the image's find and rm run that way, so a restore that could
// not empty the volume is refused before the service is stopped.
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { containerState } from './containers.js';
import type { Labels, Ownership } from './labels.js';
import { BOUNDED_LOG_CONFIG } from './log-config.js';
import { LABEL_ROLE, ONE_OFF_ROLE } from './one-off.js';

const VOLUME_MOUNT = '/berth-volume';

export interface VolumeHelper {
  /** The volume's Docker name. */
  volume: string;
  image: string;
  /** The owner's labels (Ownership.labels); the role label is added here. */
  labels: Labels;
}

/** Fails unless the volume exists and its labels prove it one of this project's (a missing one is never created by a helper's mount). */
export async function requireOwnedVolume(docker: Docker, own: Ownership, projectId: string, name: string): Promise<void> {
  let info: { Labels?: Labels | null };
  try {
    info = (await docker.getVolume(name).inspect()) as { Labels?: Labels | null };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) throw new Error('the volume does not exist yet: deploy the service first', { cause: err });
    throw err;
  }
  if (!own.owns(info.Labels, { projectId })) throw new Error(`volume ${name} exists but Berth did not create it for this project`);
}

/** The image a helper runs from: the live container's, else any image this Docker has (the volume's data never depends on it). */
export async function helperImage(docker: Docker, liveContainerId: string | null): Promise<string> {
  if (liveContainerId) {
    const info = await docker
      .getContainer(liveContainerId)
      .inspect()
      .catch(() => null);
    if (info?.Image) return info.Image;
  }
  const images = await docker.listImages();
  const any = images.find((i) => (i.RepoTags ?? []).some((t) => t !== '<none>:<none>')) ?? images[0];
  if (!any) throw new Error('there is no image on this server to run the helper container from');
  return any.Id;
}

async function createHelper(docker: Docker, h: VolumeHelper, readOnly: boolean, argv: string[]): Promise<Docker.Container> {
  return docker.createContainer({
    Image: h.image,
    Entrypoint: argv.slice(0, 1),
    Cmd: argv.slice(1),
    User: '0:0',
    NetworkDisabled: true,
    Labels: { ...h.labels, [LABEL_ROLE]: ONE_OFF_ROLE },
    HostConfig: {
      NetworkMode: 'none',
      LogConfig: BOUNDED_LOG_CONFIG,
      Mounts: [{ Type: 'volume', Source: h.volume, Target: VOLUME_MOUNT, ReadOnly: readOnly }],
    },
  });
}

const remove = (c: Docker.Container) => c.remove({ force: true, v: true }).catch(() => undefined);

/**
 * The volume's contents as a tar stream (entries under `berth-volume/`), read from a helper that is
 * never started and mounts the volume read-only; `done` removes the helper (call it always).
 */
export async function openVolumeTar(docker: Docker, h: VolumeHelper): Promise<{ tar: Readable; done: () => Promise<void> }> {
  const helper = await createHelper(docker, h, true, ['/berth-helper-never-runs']);
  try {
    const tar = (await helper.getArchive({ path: VOLUME_MOUNT })) as Readable;
    return { tar, done: () => remove(helper).then(() => undefined) };
  } catch (err) {
    await remove(helper);
    throw err;
  }
}

/** Extracts a tar made by openVolumeTar into the volume (through a helper that is never started). */
export async function extractVolumeTar(docker: Docker, h: VolumeHelper, tar: Readable): Promise<void> {
  const helper = await createHelper(docker, h, false, ['/berth-helper-never-runs']);
  try {
    await helper.putArchive(tar, { path: '/' });
  } finally {
    await remove(helper);
  }
}

async function runHelper(docker: Docker, h: VolumeHelper, readOnly: boolean, argv: string[], timeoutMs: number): Promise<number> {
  const helper = await createHelper(docker, h, readOnly, argv);
  const timer = setTimeout(() => void helper.stop({ t: 1 }).catch(() => undefined), timeoutMs);
  try {
    await helper.start();
    const waited = (await helper.wait()) as { StatusCode: number };
    return waited.StatusCode;
  } finally {
    clearTimeout(timer);
    await remove(helper);
  }
}

/** Null when the image can empty the volume (its find runs rm through -exec); else why not. Changes nothing (the volume is mounted read-only, rm -f names a path that does not exist). */
export async function emptyingTool(docker: Docker, h: VolumeHelper): Promise<string | null> {
  try {
    const code = await runHelper(docker, h, true, ['find', VOLUME_MOUNT, '-maxdepth', '0', '-exec', 'rm', '-rf', '--', '/berth-helper-no-such-path', ';'], 60_000);
    return code === 0 ? null : `find and rm exited ${code}`;
  } catch (err) {
    return `the image has no usable find and rm (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** Removes everything inside the volume (the volume itself stays, with its labels). */
export async function emptyVolume(docker: Docker, h: VolumeHelper, timeoutMs: number): Promise<void> {
  const code = await runHelper(docker, h, false, ['find', VOLUME_MOUNT, '-mindepth', '1', '-maxdepth', '1', '-exec', 'rm', '-rf', '--', '{}', '+'], timeoutMs);
  if (code !== 0) throw new Error(`emptying the volume failed (find exited ${code})`);
}

/** Stops a container when its labels prove it this service's; false when it is not (or gone). */
export async function stopOwned(docker: Docker, own: Ownership, id: string, serviceId: string): Promise<boolean> {
  const state = await containerState(docker, id);
  if (!state || !own.owns(state.labels, { serviceId })) return false;
  if (state.running) await docker.getContainer(id).stop({ t: 10 });
  return true;
}

/** Starts a container again when its labels prove it this service's. */
export async function startOwned(docker: Docker, own: Ownership, id: string, serviceId: string): Promise<void> {
  const state = await containerState(docker, id);
  if (!state || !own.owns(state.labels, { serviceId })) throw new Error("the service container is gone or not this service's");
  if (!state.running) await docker.getContainer(id).start();
}
