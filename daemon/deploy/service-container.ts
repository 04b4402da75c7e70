// What every container of a service runs with besides its image and command: its env (references
// resolved), its project network, its limits, and its volumes and config files. Deployments,
// release commands, scheduled jobs and `exec --mode run` all take it from here, so a job sees
// exactly what the app sees.
import { EnvResolver } from '../core/env-references.js';
import { BuildError } from '../core/build-error.js';
import { effectiveLimits } from '../core/limits.js';
import type { ServiceRecord } from '../core/records.js';
import { ensureProjectNetwork } from '../docker/networks.js';
import { ensureProjectVolume } from '../docker/volumes.js';
import { existingProjectOverlay } from '../docker/swarm-services.js';
import { liveDeployment } from '../core/deployment-states.js';
import type { DeployDeps } from './context.js';
import { deploymentBinds } from './service-files.js';

export interface ServiceContainerBase {
  env: Record<string, string>;
  network: string;
  /**
   * The project's overlay while it exists (Swarm on, a replicated service in the project): every
   * container of the project joins it too, so replicated tasks and containers reach each other by
   * name whichever was (re)deployed last.
   */
  overlay: string | null;
  limits: { memoryMb: number; cpus: number; pids: number };
  /** The service's named volumes (Docker volume names) and where they mount. */
  volumes: { name: string; target: string; readOnly?: boolean }[];
  /** Its config files: read-only bind mounts of files Berth wrote on the host. */
  binds: { source: string; target: string }[];
}

type BaseDeps = Pick<DeployDeps, 'store' | 'docker' | 'own' | 'limits' | 'filesDir'>;

/** The service's env as its containers get it: PORT, then its variables with references resolved (a bad reference fails with the variable's name). */
async function serviceEnv(d: Pick<DeployDeps, 'store'>, service: ServiceRecord): Promise<Record<string, string>> {
  const services = await d.store.services.list([service.projectId]);
  const env = await d.store.env.listByServices(services.map((s) => s.id));
  const resolver = new EnvResolver(services, env);
  const out: Record<string, string> = {};
  if (service.internalPort !== null && service.kind !== 'database') out.PORT = String(service.internalPort);
  for (const e of env.filter((x) => x.serviceId === service.id)) {
    try {
      out[e.key] = resolver.resolve(e.value);
    } catch (err) {
      throw new BuildError(`environment variable ${e.key}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** The service's volumes as Docker mounts, each created (with ownership labels) when it does not exist yet. */
async function serviceVolumes(d: Pick<DeployDeps, 'docker' | 'own'>, service: ServiceRecord): Promise<ServiceContainerBase['volumes']> {
  const out: ServiceContainerBase['volumes'] = [];
  for (const v of service.volumes) out.push({ name: await ensureProjectVolume(d.docker, d.own, service.projectId, v.name), target: v.mountPath, readOnly: v.readOnly });
  return out;
}

/**
 * Everything but the image, command, name and labels of a container of `service`: its config
 * files are those of the live deployment (`binds` gives a deployment's own instead).
 */
export async function serviceContainerBase(d: BaseDeps, service: ServiceRecord, binds?: ServiceContainerBase['binds']): Promise<ServiceContainerBase> {
  const env = await serviceEnv(d, service);
  const network = await ensureProjectNetwork(d.docker, d.own, service.projectId);
  const volumes = await serviceVolumes(d, service);
  let mounted = binds;
  if (!mounted) {
    const live = await liveDeployment(d.store, service.id);
    mounted = live ? deploymentBinds(d, service.id, live.id) : [];
  }
  const overlay = await existingProjectOverlay(d.docker, d.own, service.projectId);
  return { env, network, overlay, limits: effectiveLimits(d.limits, service), volumes, binds: mounted };
}
