// Where a service's instances run, as the Engine sees it (daemon/swarm/instances.ts): its Swarm
// tasks, or on a single server its container.
import type { ServiceInstance } from '../../../shared/types.js';
import type { ServiceRecord } from '../records.js';

export interface InstancesSource {
  of(service: ServiceRecord): Promise<ServiceInstance[]>;
}
