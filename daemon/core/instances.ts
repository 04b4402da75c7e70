// GET /api/services/:serviceId/instances: where a service runs, one entry per Swarm task or
// container. Any key that sees the service may read it; the rest get the same 404 as for an
// unknown service.
import type { ServiceInstance } from '../../shared/types.js';
import { visibleService, type Access } from './access.js';
import type { InstancesSource } from './ports/instances.js';
import type { Store } from './ports/store.js';

export class Instances {
  constructor(private d: { store: Store; instances: InstancesSource }) {}

  async list(access: Access, serviceId: string): Promise<{ instances: ServiceInstance[] }> {
    const service = await visibleService(this.d.store, access, serviceId);
    return { instances: await this.d.instances.of(service) };
  }
}
