// Projects and moving a service between them.

import type { ProxyResult, Timestamp } from './common.js';
import type { Service } from './services.js';

export type ProjectStatus = 'idle' | 'active';

export interface Project {
  id: string;
  name: string;
  slug: string;
  description: string;
  status: ProjectStatus;
  serviceCount: number;
  lastUpdatedAt: Timestamp;
  services: Service[];
}

export interface TransferResult {
  service: Pick<Service, 'id' | 'projectId' | 'name' | 'slug'>;
  project: Pick<Project, 'id' | 'name' | 'slug' | 'serviceCount' | 'services'>;
  proxy: ProxyResult;
}
