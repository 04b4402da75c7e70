// A project's volumes: named Docker volumes Berth owns, mounted by its services. A volume kept when
// its service was deleted (`keepVolumes`) stays listed with no service until another service of
// the same project mounts it. Volume backups use the backup shapes (./backups.ts) with `volume` set.

import type { Timestamp } from './common.js';

/** GET /api/projects/:projectId/volumes -> {volumes} */
export interface ProjectVolume {
  name: string;
  /** The service that mounts it; null for a kept volume no service mounts. */
  serviceId: string | null;
  mountPath: string | null;
  /** Bytes used, when Docker has measured it recently; null when not known. */
  sizeBytes: number | null;
  createdAt: Timestamp;
}
