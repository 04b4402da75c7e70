// What is particular to deploying a database service: its engine's image, its data volume, its
// TLS certificate, the engine's own readiness check, and the swap. Two servers must never open one
// data directory, so a database is recreated (the old container stops before the new one starts)
// rather than swapped while both run; when the new one fails, the old one is started again.
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import { isLive, liveDeployment } from '../core/deployment-states.js';
import { databaseLogin } from '../core/engines.js';
import { generatedOwner } from '../core/generated-names.js';
import { BuildError } from '../core/build-error.js';
import { engineModule, withAdapter } from '../databases/engines.js';
import { ensureServiceVolume } from '../docker/volumes.js';
import { containerState, publishedPort, type RunSpec } from '../docker/containers.js';
import type { DeployDeps } from './context.js';
import { folderArchive } from './database-node.js';

type Say = (line: string, stream?: 'stdout' | 'stderr') => void;

/**
 * The container settings a database service adds to the common ones. `d.docker` is the Engine the
 * container runs on (its volume is made there); `remote`: another node's, where this server's TLS
 * folder is copied in instead of bound.
 */
export async function databaseRunSpec(d: DeployDeps, service: ServiceRecord, say: Say, remote = false): Promise<Pick<RunSpec, 'volumes' | 'binds' | 'copyIn' | 'entrypoint' | 'cmd'>> {
  const engine = service.databaseEngine!;
  const volume = await ensureServiceVolume(d.docker, d.own, { projectId: service.projectId, serviceId: service.id });
  let tlsDir: string | null = null;
  const module = engineModule(engine);
  if (module.servesTls) {
    // The public hostname was checked at creation; a name that became another service's since
    // (a service created later whose generated name it is) is left out rather than signed for two.
    const publicName = service.databasePublicHostname;
    const taken = publicName ? await generatedOwner(d.store, publicName, service.id) : null;
    if (taken) say(`TLS: ${publicName} is ${taken} now, so the certificate leaves it out`);
    // Only the service's own names: every tenant's database shares this host's addresses
    // (127.0.0.1, localhost, the public IP), so a certificate for them would let any tenant's
    // database pass `verify-full` for another's; clients verify by the public hostname.
    const names = [taken ? '' : (publicName ?? ''), service.slug];
    const cert = await d.ca.issueServer(service.id, names);
    tlsDir = cert.dir;
    say(`TLS on, with a certificate from the Berth CA for ${cert.names.join(', ')}`);
  }
  const spec = module.container({ logicalReplication: service.postgresLogicalReplicationEnabled, tlsDir });
  if (service.postgresLogicalReplicationEnabled && module.servesTls) say('Logical replication on (wal_level=logical)');
  say(`Data lives in volume ${volume} (kept across deployments)${remote ? ', on the node' : ''}`);
  // an engine binds at most its TLS folder
  const tls = spec.binds[0];
  const files = remote ? { binds: [], ...(tls ? { copyIn: folderArchive(tls.source, tls.target) } : {}) } : { binds: spec.binds };
  return { volumes: [{ name: volume, target: spec.dataPath }], ...files, entrypoint: spec.entrypoint, cmd: spec.cmd };
}

/** True once the engine answers its readiness statement with the service's own credentials, at `host`:`port`. */
export function databaseReady(d: DeployDeps, service: ServiceRecord, env: Record<string, string>, port: number, host = '127.0.0.1'): () => Promise<boolean> {
  const engine = service.databaseEngine!;
  const login = databaseLogin(engine, new Map(Object.entries(env)));
  const statement = engineModule(engine).readinessStatement;
  return async () => {
    try {
      await withAdapter(d.openAdapter, engine, { host, port, ...login }, (a) => a.query(statement, { timeoutMs: 3000, maxRows: 1, maxBytes: 64 * 1024 }, {}));
      return true;
    } catch {
      return false;
    }
  };
}

/** Stops the live containers of a database before the new one starts; returns what was stopped. */
export async function stopLiveDatabase(d: DeployDeps, service: ServiceRecord, dep: DeploymentRecord, say: Say): Promise<DeploymentRecord[]> {
  const live = (await d.store.deployments.listByService(service.id)).filter((x) => isLive(x) && x.id !== dep.id);
  for (const old of live) {
    say(`Stopping the running database container ${old.containerName ?? old.containerId} (one server per data volume)`);
    await d.docker
      .getContainer(old.containerId!)
      .stop({ t: 30 })
      .catch((err: { statusCode?: number }) => {
        if (err.statusCode !== 304 && err.statusCode !== 404) throw new BuildError(`could not stop the running database: ${String(err)}`);
      });
  }
  return live;
}

/** After a failed redeploy: the stopped containers start again on the same volume. */
export async function restartStopped(d: DeployDeps, service: ServiceRecord, stopped: readonly DeploymentRecord[], say: Say): Promise<void> {
  for (const old of stopped) {
    try {
      await d.docker.getContainer(old.containerId!).start();
      // the Engine publishes its host port again (an older container may come back on another port)
      const port = service.internalPort !== null ? await publishedPort(d.docker, old.containerId!, `${service.internalPort}/tcp`) : null;
      if (port !== null) await d.store.deployments.update(old.id, { upstreamPort: port });
      say(`Started the previous database container ${old.containerName ?? old.containerId} again`);
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode !== 304) say(`Could not start the previous database container again: ${(err as Error).message}`, 'stderr');
    }
  }
}

/**
 * At start-up, the live deployment of a database whose container is stopped: a redeploy stopped it
 * and the daemon died before the new container went live (the new one is removed as interrupted
 * work first, so only one server ever opens the volume). It is started again, never removed as
 * debris: it is the database. Only the newest live deployment of a service is started, and only a
 * container whose labels prove it is that deployment's. Returns its state afterwards.
 */
export async function startDatabaseStoppedByCrash(d: DeployDeps, service: ServiceRecord, dep: DeploymentRecord): Promise<Awaited<ReturnType<typeof containerState>>> {
  const newest = await liveDeployment(d.store, service.id);
  const state = await containerState(d.docker, dep.containerId!);
  if (newest?.id !== dep.id || !state || !d.own.owns(state.labels, { serviceId: service.id, deploymentId: dep.id })) return state;
  try {
    await d.docker.getContainer(dep.containerId!).start();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 304) {
      d.log(`starting the stopped database container of ${service.id} again`, err);
      return state;
    }
  }
  d.buildLogs.append(dep.id, dep.id, 'The daemon stopped during a redeploy that had stopped this database container; it was started again', 'stderr');
  return containerState(d.docker, dep.containerId!);
}
