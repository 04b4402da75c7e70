// Environment variables of a service: upsert by key (references checked), delete. Each change is
// announced with the variable's id and name, never its value.
import { ENV_KEY_PATTERN } from '../../shared/constants.js';
import { visibleService, type Access } from './access.js';
import type { Catalog } from './catalog.js';
import type { Clock } from './clock.js';
import { InvalidInput, NotFound } from './errors.js';
import type { EventSink } from './events.js';
import { newId } from './ids.js';
import type { Store } from './ports/store.js';
import type { ServiceRecord } from './records.js';

export class EnvVars {
  constructor(
    private store: Store,
    private clock: Clock,
    private catalog: Catalog,
    private events: EventSink,
  ) {}

  async upsert(access: Access, serviceId: string, key: string, value: string): Promise<void> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    if (!ENV_KEY_PATTERN.test(key)) throw new InvalidInput(`env key "${key.slice(0, 80)}" must match ${ENV_KEY_PATTERN.source}`);
    // The new value must resolve in the project as it would be after the change: this catches
    // unknown services, unknown variables and any cycle that passes through this variable.
    const { resolver } = await this.catalog.resolver(service.projectId);
    resolver.withVariable(service.id, key, value).resolve(value);
    const now = this.clock.now();
    const existed = (await this.store.env.listByService(service.id)).some((e) => e.key === key);
    await this.store.env.upsert({ id: newId(), serviceId: service.id, key, value, createdAt: now, updatedAt: now });
    const stored = (await this.store.env.listByService(service.id)).find((e) => e.key === key);
    if (stored) this.announce(service, stored.id, key, existed ? 'updated' : 'created');
  }

  private announce(service: ServiceRecord, envId: string, key: string, action: 'created' | 'updated' | 'deleted'): void {
    this.events.publish({ type: 'env', projectId: service.projectId, data: { serviceId: service.id, projectId: service.projectId, envId, key, action } });
  }

  async delete(access: Access, serviceId: string, envId: string): Promise<void> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    const gone = (await this.store.env.listByService(service.id)).find((e) => e.id === envId);
    if (!(await this.store.env.delete(service.id, envId))) throw new NotFound('environment variable not found');
    this.announce(service, envId, gone?.key ?? '', 'deleted');
  }
}
