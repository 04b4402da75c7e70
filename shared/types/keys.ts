// API keys (/api/keys): their access (read or write) and the projects they reach.

import type { Timestamp } from './common.js';

export type KeyAccess = 'read' | 'write';

export type KeyProjects = 'all' | string[];

export interface ApiKey {
  id: string;
  name: string;
  access: KeyAccess;
  projects: KeyProjects;
  createdAt: Timestamp;
  lastUsedAt: Timestamp | null;
}
