// Finding a resource for a key: unknown and out-of-scope answer the same 404.
import type { Access } from './access.js';
import { NotFound } from './errors.js';
import type { ProjectRecord, ServiceRecord } from './records.js';
import type { Store } from './store.js';

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
