// Custom domains of a service and the generated hostname labels.

import type { Timestamp } from './common.js';

export type DomainStatus = 'active';

export interface Domain {
  id: string;
  serviceId: string;
  hostname: string;
  status: DomainStatus;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A generated hostname label handed out once (GET /api/generated-names, keys over all projects). */
export interface GeneratedName {
  label: string;
  /** `<label>.<rootDomain>`; null without a root domain. */
  hostname: string | null;
  /** The project it was generated for, which keeps it after its service is gone. */
  projectId: string;
  /** The service holding it now; null once that service is gone (the name stays the project's). */
  serviceId: string | null;
  createdAt: Timestamp;
}
