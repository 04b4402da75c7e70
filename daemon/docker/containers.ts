// Containers: run one for a deployment, find the ones Berth owns, stop and remove with proof of
// ownership, and follow their logs.
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { BOUNDED_LOG_CONFIG } from './log-config.js';
import { resourceLimits } from './resource-limits.js';
import { DockerLogLines } from './output-lines.js';
import type { Labels, Owner, Ownership } from './labels.js';

export interface RunSpec {
  name: string;
  image: string;
  env: Record<string, string>;
  labels: Labels;
  network: string;
  alias: string;
  /** A second network joined under the same alias before the start: the project's overlay while Swarm runs some of its services. */
  overlay?: string | null;
  /** Port inside the container to publish; null for none. */
  internalPort: number | null;
  /**
   * Where Docker publishes internalPort. A fixed port (not an ephemeral one) survives a restart of
   * the container, dockerd or the host, so Caddy's saved routes stay right without the daemon.
   */
  publish?: { hostIp: string; hostPort: number };
  volumes?: { name: string; target: string; readOnly?: boolean }[];
  /** Read-only bind mounts of host directories. */
  binds?: { source: string; target: string }[];
  /** A tar archive extracted at `/` before the start: files for a container on another node, where a bind of this server's disk cannot reach. */
  copyIn?: Buffer;
  entrypoint?: string[];
  cmd?: string[];
  /** Memory (MiB, and no swap beyond it), CPUs and processes the container may use. */
  limits: { memoryMb: number; cpus: number; pids: number };
}

export interface RunningContainer {
  id: string;
  name: string;
  /** The loopback port Docker published internalPort on; null without a port. */
  upstreamPort: number | null;
}

export async function runContainer(docker: Docker, spec: RunSpec): Promise<RunningContainer> {
  const port = spec.internalPort !== null ? `${spec.internalPort}/tcp` : null;
  const container = await docker.createContainer({
    name: spec.name,
    Image: spec.image,
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    Labels: spec.labels,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    ...(spec.cmd ? { Cmd: spec.cmd } : {}),
    ExposedPorts: port ? { [port]: {} } : {},
    HostConfig: {
      RestartPolicy: { Name: 'unless-stopped' },
      LogConfig: BOUNDED_LOG_CONFIG,
      ...resourceLimits(spec.limits),
      PortBindings: port ? { [port]: [{ HostIp: spec.publish?.hostIp ?? '127.0.0.1', HostPort: spec.publish ? String(spec.publish.hostPort) : '' }] } : {},
      NetworkMode: spec.network,
      Mounts: [
        ...(spec.volumes ?? []).map((v) => ({ Type: 'volume' as const, Source: v.name, Target: v.target, ReadOnly: v.readOnly ?? false })),
        ...(spec.binds ?? []).map((b) => ({ Type: 'bind' as const, Source: b.source, Target: b.target, ReadOnly: true })),
      ],
    },
    NetworkingConfig: { EndpointsConfig: { [spec.network]: { Aliases: [spec.alias] } } },
  });
  try {
    if (spec.overlay) await docker.getNetwork(spec.overlay).connect({ Container: container.id, EndpointConfig: { Aliases: [spec.alias] } });
    if (spec.copyIn) await container.putArchive(spec.copyIn, { path: '/' });
    await container.start();
  } catch (err) {
    // never leave a created container behind (its labels would make it debris anyway)
    await container.remove({ force: true, v: true }).catch(() => undefined);
    throw err;
  }
  // A fixed host port is where the Engine published it once start returned (it fails otherwise):
  // no inspect to read it back. Only an ephemeral one is looked up.
  const upstreamPort = !port ? null : spec.publish ? spec.publish.hostPort : await publishedPort(docker, container.id, port);
  return { id: container.id, name: spec.name, upstreamPort };
}

export async function publishedPort(docker: Docker, id: string, port: string): Promise<number | null> {
  const info = await docker.getContainer(id).inspect();
  const binding = info.NetworkSettings.Ports?.[port]?.[0];
  return binding ? Number(binding.HostPort) : null;
}

/** `running` stays true while Docker waits to restart a container that exited; `restarting` says so. */
export async function containerState(docker: Docker, id: string): Promise<{ running: boolean; restarting: boolean; labels: Labels } | null> {
  try {
    const info = await docker.getContainer(id).inspect();
    return { running: info.State.Running, restarting: info.State.Restarting, labels: info.Config.Labels ?? {} };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
}

/** Stops (with a grace period) and removes a container, only if its labels prove it is this service's. */
export async function removeOwnedContainer(docker: Docker, own: Ownership, id: string, owner: { serviceId: string }, graceSeconds = 10): Promise<boolean> {
  const state = await containerState(docker, id);
  if (!state || !own.owns(state.labels, owner)) return false;
  const container = docker.getContainer(id);
  if (state.running) await container.stop({ t: graceSeconds }).catch(() => undefined);
  // v: its anonymous volumes (an image's VOLUME the service mounts nothing on) go with it; named
  // volumes (a database's data) are never removed by this
  await container.remove({ force: true, v: true }).catch(() => undefined);
  return true;
}

export interface OwnedContainer {
  id: string;
  name: string;
  labels: Labels;
  running: boolean;
}

export async function listOwnedContainers(docker: Docker, own: Ownership, owner: Owner): Promise<OwnedContainer[]> {
  const list = await docker.listContainers({ all: true, filters: own.filter(owner) });
  return list.filter((c) => own.owns(c.Labels, owner)).map((c) => ({ id: c.Id, name: (c.Names[0] ?? '').replace(/^\//, ''), labels: c.Labels, running: c.State === 'running' }));
}

export interface LogFollower {
  stop(): void;
}

/**
 * Follows a container's stdout and stderr from `sinceSeconds` (epoch seconds; 0 for all), line by
 * line, each line at most MAX_LINE_CHARS (a longer one is cut into several). `onEnd` runs once when
 * the log ends (the container stopped) or following failed. While `busy()` returns a promise the
 * log is not read (the Engine keeps it), so a container printing faster than lines are stored
 * does not pile them up in memory.
 */
export async function followContainerLogs(
  docker: Docker,
  id: string,
  sinceSeconds: number,
  onLine: (line: string, stream: 'stdout' | 'stderr') => void,
  onEnd: () => void,
  busy: () => Promise<void> | null = () => null,
): Promise<LogFollower> {
  const container = docker.getContainer(id);
  const raw = (await container.logs({ follow: true, stdout: true, stderr: true, since: sinceSeconds, timestamps: false })) as unknown as Readable;
  return followLogStream(raw, onLine, onEnd, busy);
}

/** Lines of a multiplexed log stream as they come, paused while `busy` says the book is writing; `onEnd` once it ends. */
export function followLogStream(raw: Readable, onLine: (line: string, stream: 'stdout' | 'stderr') => void, onEnd: () => void, busy: () => Promise<void> | null = () => null): LogFollower {
  let stopped = false;
  const lines = new DockerLogLines((line, stream) => {
    if (!stopped) onLine(line, stream);
  });
  raw.on('data', (chunk: Buffer | string) => {
    if (stopped) return;
    lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const wait = busy();
    if (wait) {
      raw.pause();
      void wait.then(() => {
        if (!stopped) raw.resume();
      });
    }
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    if (!stopped) lines.end();
    onEnd();
  };
  raw.on('end', end);
  raw.on('close', end);
  raw.on('error', end);
  return {
    stop() {
      stopped = true;
      ended = true;
      raw.destroy();
    },
  };
}
