// The deployment engine: the queue, aborts, clean-up when services and projects go, and the
// start-up reconciliation of what Docker holds against the store.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DeploymentEngine } from '../core/ports/deployment-engine.js';
import { liveDeployment } from '../core/deployment-states.js';
import type { ProjectRecord, ServiceRecord } from '../core/records.js';
import { isDockerUnreachable } from '../docker/client.js';
import { listOwnedContainers, publishedPort, removeOwnedContainer } from '../docker/containers.js';
import { imageExists, removeOwnedImage } from '../docker/images.js';
import { removeBuildLeftovers } from '../docker/build-leftovers.js';
import { LABEL_IMAGE_OWNER } from '../docker/labels.js';
import { removeProjectNetwork } from '../docker/networks.js';
import { listOwnedSwarmServices, removeOwnedSwarmService, removeProjectOverlay } from '../docker/swarm-services.js';
import { removeProjectVolume, removeProjectVolumes, removeServiceVolume } from '../docker/volumes.js';
import { removeServiceFiles } from './service-files.js';
import { collectRegistryGarbage, type RegistryGcResult } from './registry-gc.js';
import { rollbackDeploymentIds, swarmSpecDigests } from './retire.js';
import { serviceHost } from './service-host.js';
import type { DeployDeps } from './context.js';
import { DeployQueue } from './queue.js';
import { watchReachability } from './health-watch.js';
import { isRoutedWeb } from '../proxy/routing.js';
import { reconcileDocker, recordInterrupted } from './reconcile.js';
import { reconcileWhenEngineAnswers, type PendingReconcile } from './reconcile-retry.js';
import { runDeployment } from './run-deployment.js';
import { finishFailed, markServiceAfterFailure, setStatus } from './states.js';

export class DockerDeploymentEngine implements DeploymentEngine {
  readonly queue: DeployQueue;

  constructor(
    private d: DeployDeps,
    concurrency: number,
  ) {
    this.queue = new DeployQueue(concurrency, {
      run: (id, signal) => runDeployment(d, id, signal),
      superseded: async (id, byId) => {
        const dep = await d.store.deployments.get(id);
        if (!dep || dep.status !== 'queued') return;
        d.buildLogs.append(id, id, `Superseded by deployment ${byId} before it started`);
        await setStatus(d, dep, 'superseded', { finishedAt: d.clock.now() });
      },
      onError: (err) => d.log('deployment queue', err),
    });
  }

  private stopWatch: () => void = () => undefined;
  /** Reconciliation waiting for the Docker Engine to answer, when it did not at start. */
  pendingReconcile: PendingReconcile | null = null;

  /**
   * Marks interrupted work failed, adopts live containers, removes debris; then watches
   * reachability. When the Engine is not answering, the Docker part runs once it does.
   */
  async start(reachabilityIntervalMs = 30_000): Promise<void> {
    this.stopWatch = watchReachability(this.d, reachabilityIntervalMs);
    const interrupted = await recordInterrupted(this.d);
    try {
      await reconcileDocker(this.d, interrupted);
    } catch (err) {
      if (!isDockerUnreachable(err)) throw err;
      this.d.log(`the Docker Engine is not answering (${(err as Error).message}); live containers are adopted once it does`);
      this.pendingReconcile = reconcileWhenEngineAnswers(this.d, interrupted);
    }
  }

  enqueue(deploymentId: string, serviceId: string, projectId: string): void {
    this.queue.enqueue(deploymentId, serviceId, projectId);
  }

  async abort(deploymentId: string): Promise<boolean> {
    const where = this.queue.abort(deploymentId);
    if (where === 'queued') {
      const dep = await this.d.store.deployments.get(deploymentId);
      if (dep) {
        this.d.buildLogs.append(dep.id, dep.id, 'Deployment aborted before it started');
        await finishFailed(this.d, dep, 'aborted');
        await markServiceAfterFailure(this.d, dep.serviceId);
      }
    }
    return where !== null;
  }

  imageExists(ref: string): Promise<boolean> {
    return imageExists(this.d.docker, ref);
  }

  async serviceDeleted(service: ServiceRecord): Promise<void> {
    await this.stopWork(service.id);
    this.d.runtimeLogs.stop(service.id);
    this.d.ca.forget(service.id);
    // backup files on disk go with the service (their rows go by cascade); remote copies stay
    rmSync(join(this.d.backupsDir, service.id), { recursive: true, force: true });
    removeServiceFiles(this.d, service.id);
    await this.whenDockerAnswers(`removing the containers of service ${service.id}`, () => this.removeDockerObjects(service));
  }

  private async removeDockerObjects(service: ServiceRecord): Promise<void> {
    // its Swarm service first (labels checked): its pool leaves Caddy, its tasks stop on every node
    const swarmServices = (await this.d.swarm.enabled()) ? await listOwnedSwarmServices(this.d.docker, this.d.own, { serviceId: service.id }) : [];
    for (const s of swarmServices) {
      await this.d.swarmTasks.drop(service.id);
      await removeOwnedSwarmService(this.d.docker, this.d.own, s.id, { serviceId: service.id });
    }
    for (const c of await listOwnedContainers(this.d.docker, this.d.own, { serviceId: service.id })) {
      await removeOwnedContainer(this.d.docker, this.d.own, c.id, { serviceId: service.id }, 5);
    }
    // images carry one combined label (see docker/labels.ts): select by key, prove by value
    const images = await this.d.docker.listImages({ filters: { label: [LABEL_IMAGE_OWNER] } });
    for (const image of images) {
      if (this.d.own.owns(image.Labels, { serviceId: service.id })) await removeOwnedImage(this.d.docker, this.d.own, image.Id, { serviceId: service.id });
    }
    // what its builds left untagged (the stages of a multi-stage Dockerfile), found by the build label
    await removeBuildLeftovers(this.d.docker, this.d.own, service.id, 0);
    // a database's data goes with the service, and only then (never on a redeploy)
    if (service.kind === 'database' && service.nodeId === null) await removeServiceVolume(this.d.docker, this.d.own, service.id);
    if (service.nodeId !== null) await this.removeOnNode(service);
    // its project volumes, unless the delete kept them (then the record lists none)
    for (const v of service.volumes) await removeProjectVolume(this.d.docker, this.d.own, service.projectId, v.name);
  }

  /** A database created on another node: its containers and volume there go too; a node that cannot be reached keeps them, and the daemon log says what is left where. */
  private async removeOnNode(service: ServiceRecord): Promise<void> {
    try {
      const host = await serviceHost(this.d, service);
      for (const c of await listOwnedContainers(host.docker, this.d.own, { serviceId: service.id })) {
        await removeOwnedContainer(host.docker, this.d.own, c.id, { serviceId: service.id }, 5);
      }
      await removeServiceVolume(host.docker, this.d.own, service.id);
    } catch (err) {
      this.d.log(`removing the container and volume of database ${service.id} on node ${service.nodeId}: not reachable now; remove them there by hand (label dev.berth.service=${service.id})`, err);
    }
  }

  async projectDeleted(project: ProjectRecord, services: readonly ServiceRecord[]): Promise<void> {
    for (const s of services) await this.serviceDeleted(s);
    await this.whenDockerAnswers(`removing the network of project ${project.id}`, () => removeProjectNetwork(this.d.docker, this.d.own, project.id));
    // (asking whether Swarm is on is a call to the Engine too: inside, so an unreachable Engine defers it like the rest)
    await this.whenDockerAnswers(`removing the overlay of project ${project.id}`, async () => {
      if (await this.d.swarm.enabled()) await removeProjectOverlay(this.d.docker, this.d.own, project.id);
    });
    // kept volumes (no service) go with their project
    await this.whenDockerAnswers(`removing the volumes of project ${project.id}`, async () => void (await removeProjectVolumes(this.d.docker, this.d.own, project.id)));
  }

  /**
   * Clean-up after a delete is best effort when the Engine is down: the rows are already gone (the
   * user's intent is recorded), a stopped Engine runs nothing, and start-up reconciliation removes
   * what remains. Any other Docker error still fails the request.
   */
  private async whenDockerAnswers(what: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      if (!isDockerUnreachable(err)) throw err;
      this.d.log(`${what}: the Docker Engine is not reachable (${(err as Error).message}); reconciliation at the next start removes what is left`);
    }
  }

  /** After something else restarted a service's live container (a restore): the store (and Caddy, for web services) follow its published port. */
  async containerRestarted(serviceId: string): Promise<void> {
    const service = await this.d.store.services.get(serviceId);
    const live = await liveDeployment(this.d.store, serviceId);
    if (!service || !live || service.internalPort === null) return;
    // on the Engine it runs on (another node's for a database created there)
    const port = await publishedPort((await serviceHost(this.d, service)).docker, live.containerId, `${service.internalPort}/tcp`);
    if (port === null) return;
    if (port === live.upstreamPort) return;
    await this.d.store.deployments.update(live.id, { upstreamPort: port });
    if (isRoutedWeb(service)) await this.d.dataPlane.apply();
  }

  /** Aborts whatever the queue holds for a service (its rows are already gone or going). */
  private async stopWork(serviceId: string): Promise<void> {
    for (const id of this.queue.idsOf(serviceId)) this.queue.abort(id);
    await this.queue.settled(serviceId);
  }

  /** Berth's registry keeps what rollbacks need, by the rule the manager's own images follow (retire.ts). */
  collectRegistryGarbage(): Promise<RegistryGcResult | null> {
    const d = this.d;
    return collectRegistryGarbage({ docker: d.docker, registry: d.registry, keptTags: (id) => rollbackDeploymentIds(d, id), specDigests: (id) => swarmSpecDigests(d, id) });
  }

  async shutdown(): Promise<void> {
    this.stopWatch();
    this.pendingReconcile?.stop();
    await this.pendingReconcile?.done;
    this.d.runtimeLogs.stopAll();
    await this.d.buildLogs.flush();
    await this.d.runtimeLogs.book.flush();
  }
}
