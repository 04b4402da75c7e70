// Environment variables of a service: upsert by key (references checked), delete.
import { ENV_KEY_PATTERN } from '../../shared/constants.js';
import { visibleService, type Access } from './access.js';
import type { Catalog } from './catalog.js';
import type { Clock } from './clock.js';
import { InvalidInput, NotFound } from './errors.js';
import { newId } from './ids.js';
import type { Store } from './ports/store.js';

export class EnvVars {
  constructor(
    private store: Store,
    private clock: Clock,
    private catalog: Catalog,
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
    await this.store.env.upsert({ id: newId(), serviceId: service.id, key, value, createdAt: now, updatedAt: now });
  }

  async delete(access: Access, serviceId: string, envId: string): Promise<void> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    if (!(await this.store.env.delete(service.id, envId))) throw new NotFound('environment variable not found');
  }
}
