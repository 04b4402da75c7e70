// The throwaway container a restore test restores a backup into: the service's engine and image,
// its credentials, the engine's container contract, on the project's own network (the one Berth's
// firewall guards: the dump is tenant input, and a crafted one can run programs in the server, so
// the throwaway gets exactly the reach the live database has, never Docker's unguarded default
// bridge), its port published on 127.0.0.1 at a port the Engine picks (the daemon's
// adapter connects there), the service's memory/CPU/PID limits, no restart policy, and its data in
// an anonymous volume that goes with it. Its labels prove Berth made it for that service, with the
// role `restore-test`: nothing else is ever removed here, and start-up removes one a crash left.
import type Docker from 'dockerode';
import { BOUNDED_LOG_CONFIG } from './log-config.js';
import { resourceLimits } from './resource-limits.js';
import { LABEL_INSTANCE, LABEL_MANAGED, LABEL_SERVICE, type Labels, type Ownership } from './labels.js';
import { LABEL_ROLE } from './one-off.js';
import { publishedPort } from './containers.js';

const RESTORE_TEST_ROLE = 'restore-test';
/** The backup a restore-test container restores (for a reader of `docker ps`). */
const LABEL_BACKUP = 'dev.berth.backup';

export interface RestoreTestSpec {
  name: string;
  image: string;
  env: Record<string, string>;
  /** The service's ownership labels (Ownership.labels); the role and backup labels are added here. */
  labels: Labels;
  backupId: string;
  dataPath: string;
  entrypoint?: string[];
  cmd?: string[];
  /** The engine's port inside the container. */
  port: number;
  /** The project's network (docker/networks.ts ensureProjectNetwork). */
  network: string;
  limits: { memoryMb: number; cpus: number; pids: number };
}

export interface RestoreTestContainer {
  id: string;
  /** Where the engine answers on this host (127.0.0.1); read again after a restart. */
  hostPort(): Promise<number>;
}

export async function startRestoreTestContainer(docker: Docker, spec: RestoreTestSpec): Promise<RestoreTestContainer> {
  const port = `${spec.port}/tcp`;
  const labels = { ...spec.labels, [LABEL_ROLE]: RESTORE_TEST_ROLE, [LABEL_BACKUP]: spec.backupId };
  const container = await docker.createContainer({
    name: spec.name,
    Image: spec.image,
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    Labels: labels,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    ...(spec.cmd ? { Cmd: spec.cmd } : {}),
    ExposedPorts: { [port]: {} },
    HostConfig: {
      LogConfig: BOUNDED_LOG_CONFIG,
      ...resourceLimits(spec.limits),
      PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: '' }] },
      NetworkMode: spec.network,
      // no Source: an anonymous volume, removed with the container (remove with v: true)
      Mounts: [{ Type: 'volume', Source: '', Target: spec.dataPath }],
    },
  });
  try {
    await container.start();
  } catch (err) {
    await container.remove({ force: true, v: true }).catch(() => undefined);
    throw err;
  }
  return {
    id: container.id,
    hostPort: async () => {
      const p = await publishedPort(docker, container.id, port);
      if (p === null) throw new Error('the restore-test container has no published port (it stopped)');
      return p;
    },
  };
}

/** True when the labels prove this daemon made the container as a restore test (of that service, when given). */
function ownsRestoreTest(own: Ownership, labels: Labels | null | undefined, serviceId?: string): boolean {
  return own.owns(labels, serviceId ? { serviceId } : {}) && labels?.[LABEL_ROLE] === RESTORE_TEST_ROLE;
}

/** Removes a restore-test container and its anonymous volume, after checking its labels. */
export async function removeRestoreTestContainer(docker: Docker, own: Ownership, id: string, serviceId: string): Promise<void> {
  const c = docker.getContainer(id);
  const info = await c.inspect().catch((err: { statusCode?: number }) => {
    if (err.statusCode === 404) return null;
    throw err;
  });
  if (!info || !ownsRestoreTest(own, info.Config.Labels, serviceId)) return;
  await c.remove({ force: true, v: true }).catch((err: { statusCode?: number }) => {
    if (err.statusCode !== 404) throw err;
  });
}

/** Start-up: removes every restore-test container (and its volume) a stopped daemon left. Answers how many. */
export async function removeRestoreTestLeftovers(docker: Docker, own: Ownership): Promise<number> {
  const found = await docker.listContainers({ all: true, filters: { label: [`${LABEL_MANAGED}=true`, `${LABEL_INSTANCE}=${own.instanceId}`, `${LABEL_ROLE}=${RESTORE_TEST_ROLE}`] } });
  let removed = 0;
  for (const c of found) {
    if (!ownsRestoreTest(own, c.Labels) || !c.Labels[LABEL_SERVICE]) continue;
    await removeRestoreTestContainer(docker, own, c.Id, c.Labels[LABEL_SERVICE]);
    removed += 1;
  }
  return removed;
}
