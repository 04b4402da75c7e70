// Follows the tasks of Berth's Swarm services (every ~1 s while Swarm is on) and keeps each web
// service's pool in TaskPools: a task joins once it runs AND answers at <node address>:<its
// published port>; a task that is gone, failed or no longer desired running leaves at once. A
// changed pool reloads Caddy and announces the service's `instances` event. A service whose live
// deployment went back to a single container keeps no pool, so Caddy follows that container.
import type Docker from 'dockerode';
import type { EventSink } from '../core/events.js';
import type { SwarmPort } from '../core/ports/swarm.js';
import type { Store } from '../core/ports/store.js';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import type { SwarmTaskFollower } from '../deploy/context.js';
import { liveDeployment } from '../core/deployment-states.js';
import { LABEL_SERVICE, type Ownership } from '../docker/labels.js';
import { listOwnedSwarmServices, swarmServiceName } from '../docker/swarm-services.js';
import { listTasks, nodeDirectory } from '../docker/swarm-tasks.js';
import { probeAddress } from '../deploy/task-probe.js';
import type { TaskPools } from './task-pools.js';

export interface TaskWatcherDeps {
  docker: Docker;
  own: Ownership;
  swarm: SwarmPort;
  store: Store;
  pools: TaskPools;
  /** Reloads Caddy from the store and the pools. */
  apply: () => Promise<unknown>;
  events: EventSink;
  log: (message: string, err?: unknown) => void;
}

/** Whether a service should be served from its Swarm tasks: it is configured for Swarm, or its live deployment is the Swarm service. */
async function servedBySwarm(store: Store, service: ServiceRecord): Promise<boolean> {
  if (service.replicas > 1 || Object.keys(service.placement).length > 0) return true;
  const live = await liveDeployment(store, service.id);
  return live?.containerName === swarmServiceName(service.slug, service.id);
}

export class TaskWatcher implements SwarmTaskFollower {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Task signatures per service, to announce `instances` only on a change. */
  private seen = new Map<string, string>();

  constructor(private d: TaskWatcherDeps) {}

  start(intervalMs = 1000): void {
    this.timer = setInterval(() => void this.refresh(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass now (shared with a pass already under way); deployments call it before they retire what the pool replaced. */
  refresh(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.tick()
      .catch((err: unknown) => this.d.log('following Swarm tasks', err))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Takes a service's pool out of Caddy now (its Swarm service is about to go). */
  async drop(serviceId: string): Promise<void> {
    if (this.forget(serviceId)) await this.d.apply();
  }

  async isSwarmDeployment(dep: DeploymentRecord): Promise<boolean> {
    const service = await this.d.store.services.get(dep.serviceId);
    return service !== null && dep.containerName === swarmServiceName(service.slug, service.id);
  }

  private forget(serviceId: string): boolean {
    this.seen.delete(serviceId);
    return this.d.pools.set(serviceId, []);
  }

  private async tick(): Promise<void> {
    let changed = false;
    if (!(await this.d.swarm.enabled())) {
      for (const id of this.d.pools.services()) changed = this.forget(id) || changed;
      if (changed) await this.d.apply();
      return;
    }
    const swarmServices = await listOwnedSwarmServices(this.d.docker, this.d.own, {});
    const nodes = swarmServices.length > 0 ? await nodeDirectory(this.d.docker, await this.d.swarm.managerAddress()) : new Map();
    const present = new Set<string>();
    for (const s of swarmServices) {
      const serviceId = s.labels[LABEL_SERVICE];
      if (!serviceId) continue;
      const service = await this.d.store.services.get(serviceId);
      if (!service) continue;
      present.add(serviceId);
      const tasks = await listTasks(this.d.docker, s.id);
      const signature = tasks
        .map((t) => `${t.id}:${t.state}:${t.desiredState}`)
        .sort()
        .join(',');
      if (this.seen.get(serviceId) !== signature) {
        this.seen.set(serviceId, signature);
        this.d.events.publish({ type: 'instances', projectId: service.projectId, data: { serviceId, projectId: service.projectId } });
      }
      if (service.internalPort === null || service.runtimeMode === 'worker') continue;
      const wanted = await servedBySwarm(this.d.store, service);
      const current = new Set(this.d.pools.get(serviceId));
      const next: string[] = [];
      if (wanted) {
        for (const t of tasks) {
          if (t.desiredState !== 'running' || t.state !== 'running' || t.publishedPort === null) continue;
          const address = nodes.get(t.nodeId)?.address;
          if (!address) continue;
          const dial = `${address}:${t.publishedPort}`;
          // a task already in the pool stays while Docker says it runs (passive checks cover a hang);
          // a new one joins only once it answers
          if (current.has(dial) || (await probeAddress(address, t.publishedPort, service.runtimeMode === 'web' || service.runtimeMode === 'static' ? 'http' : 'tcp'))) next.push(dial);
        }
      }
      changed = this.d.pools.set(serviceId, next) || changed;
    }
    // services whose Swarm service is gone
    for (const id of this.d.pools.services()) if (!present.has(id)) changed = this.forget(id) || changed;
    for (const id of [...this.seen.keys()]) if (!present.has(id)) this.seen.delete(id);
    if (changed) await this.d.apply();
  }
}
