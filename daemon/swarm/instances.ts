// A service's instances for GET /services/:id/instances: the tasks of its Swarm service (those
// desired running, plus the ones that failed or were rejected in the last few minutes, with
// Docker's error verbatim), or else its containers on this server, one entry each.
import type Docker from 'dockerode';
import type { ServiceInstance } from '../../shared/types.js';
import type { InstancesSource } from '../core/ports/instances.js';
import type { SwarmPort } from '../core/ports/swarm.js';
import type { ServiceRecord } from '../core/records.js';
import { listOwnedContainers } from '../docker/containers.js';
import type { Ownership } from '../docker/labels.js';
import { listOwnedSwarmServices } from '../docker/swarm-services.js';
import { listTasks, nodeDirectory } from '../docker/swarm-tasks.js';

/** How long a failed or rejected task stays listed. */
const RECENT_FAILURE_MS = 5 * 60_000;

export class EngineInstances implements InstancesSource {
  constructor(private d: { docker: Docker; own: Ownership; swarm: SwarmPort }) {}

  async of(service: ServiceRecord): Promise<ServiceInstance[]> {
    const on = await this.d.swarm.enabled();
    const swarmService = on ? (await listOwnedSwarmServices(this.d.docker, this.d.own, { serviceId: service.id }))[0] : undefined;
    return swarmService ? this.tasks(swarmService.id) : this.containers(service, on);
  }

  private async tasks(swarmServiceId: string): Promise<ServiceInstance[]> {
    const nodes = await nodeDirectory(this.d.docker, await this.d.swarm.managerAddress());
    const since = Date.now() - RECENT_FAILURE_MS;
    return (await listTasks(this.d.docker, swarmServiceId))
      .filter((t) => t.desiredState === 'running' || ((t.state === 'failed' || t.state === 'rejected') && Date.parse(t.timestamp) >= since))
      .sort((a, b) => a.slot - b.slot || b.timestamp.localeCompare(a.timestamp))
      .map((t) => ({
        id: t.id,
        nodeId: t.nodeId,
        nodeHostname: nodes.get(t.nodeId)?.hostname ?? '',
        state: t.state,
        desiredState: t.desiredState,
        error: t.err,
        startedAt: t.state === 'running' && t.timestamp ? new Date(t.timestamp).toISOString() : null,
      }));
  }

  private async containers(service: ServiceRecord, swarmOn: boolean): Promise<ServiceInstance[]> {
    const info = (await this.d.docker.info()) as { Name?: string; Swarm?: { NodeID?: string } };
    const out: ServiceInstance[] = [];
    for (const c of await listOwnedContainers(this.d.docker, this.d.own, { serviceId: service.id })) {
      // Swarm's task containers are listed as tasks; one-off containers (release commands, jobs) are not instances
      if (c.labels['com.docker.swarm.task.id'] || !c.labels['dev.berth.deployment']) continue;
      const state = (
        await this.d.docker
          .getContainer(c.id)
          .inspect()
          .catch(() => null)
      )?.State;
      if (!state) continue;
      out.push({
        id: c.id,
        nodeId: swarmOn ? (info.Swarm?.NodeID ?? '') : '',
        nodeHostname: info.Name ?? '',
        state: state.Status,
        desiredState: 'running',
        error: state.Error ? state.Error : null,
        startedAt: state.Running && state.StartedAt ? new Date(state.StartedAt).toISOString() : null,
      });
    }
    return out;
  }
}
