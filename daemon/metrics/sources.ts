// The real metrics sources: systeminformation for the host, the Engine's stats API for containers.
import type Docker from 'dockerode';
import type { ServiceContainerMetrics } from '../../shared/types.js';
import type { MetricsSources } from '../core/ports/metrics-sources.js';
import type { Store } from '../core/ports/store.js';
import type { Ownership } from '../docker/labels.js';
import { ContainerSampler, type RemoteEngines } from './containers.js';
import { readCpu, readDisks, readMemory, readNetwork } from './host.js';

export interface MetricsDeps {
  docker: Docker;
  own: Ownership;
  store: Store;
  /** Its filesystem is always among the disks. */
  dataDir: string;
  /** The Engines of the Swarm nodes that run databases created there. */
  remotes?: RemoteEngines;
}

export function metricsSources(deps: MetricsDeps): MetricsSources {
  const sampler = new ContainerSampler(deps.docker, deps.own, undefined, deps.remotes);
  return {
    cpu: readCpu,
    memory: readMemory,
    disks: () => readDisks(deps.dataDir),
    network: readNetwork,
    async services() {
      const [sample, records] = await Promise.all([sampler.sample(), deps.store.services.list()]);
      // labels name the project at creation; a transferred service belongs to its new project
      const projectOf = new Map(records.map((s) => [s.id, s.projectId]));
      const services: ServiceContainerMetrics[] = [];
      for (const c of sample.containers) {
        const projectId = projectOf.get(c.serviceId);
        // a container whose service is gone is reconciliation's business, not a metric
        if (projectId === undefined) continue;
        const { containerName, deploymentId, cpuPercent, memoryBytes, memoryLimitBytes } = c;
        services.push({ serviceId: c.serviceId, projectId, deploymentId, containerName, cpuPercent, memoryBytes, memoryLimitBytes });
      }
      const errors = sample.failures.flatMap((f) => {
        const projectId = projectOf.get(f.serviceId);
        return projectId === undefined ? [] : [{ projectId, message: `container ${f.containerName}: ${f.message}` }];
      });
      return { services, errors };
    },
  };
}
