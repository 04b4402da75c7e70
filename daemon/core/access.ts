// What one API key may do, and finding a resource for a key: the one access helper. Routes pass
// the key's Access to core; core use cases check it here and never see HTTP.
import type { KeyRecord, ProjectRecord, ServiceRecord } from './records.js';
import { Forbidden, NotFound } from './errors.js';
import type { Store } from './ports/store.js';

export class Access {
  constructor(readonly key: KeyRecord) {}

  get allProjects(): boolean {
    return this.key.projects === 'all';
  }

  canSee(projectId: string): boolean {
    return this.key.projects === 'all' || this.key.projects.includes(projectId);
  }

  /** Refuses a read key on a write endpoint (403): this never depends on which resource is named. */
  requireWrite(): void {
    if (this.key.access !== 'write') throw new Forbidden('this key is read-only; a write key is required');
  }

  requireAllProjects(action: string): void {
    if (!this.allProjects) throw new Forbidden(`${action} needs a key over all projects`);
  }

  /** Out-of-scope resources answer exactly like unknown ones, so a key learns nothing it cannot see. */
  requireVisible(projectId: string, what: string): void {
    if (!this.canSee(projectId)) throw new NotFound(`${what} not found`);
  }
}

// Finding a resource for a key: unknown and out-of-scope answer the same 404.

export async function visibleProject(store: Store, access: Access, idOrSlug: string): Promise<ProjectRecord> {
  const project = (await store.projects.get(idOrSlug)) ?? (await store.projects.getBySlug(idOrSlug));
  if (!project || !access.canSee(project.id)) throw new NotFound('project not found');
  return project;
}

export async function visibleService(store: Store, access: Access, serviceId: string): Promise<ServiceRecord> {
  const service = await store.services.get(serviceId);
  if (!service || !access.canSee(service.projectId)) throw new NotFound('service not found');
  return service;
}
