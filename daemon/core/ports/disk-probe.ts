// Free disk measurement (the adapter: daemon/metrics/disk-space.ts).
import type { DiskVolume } from '../../../shared/types.js';

/** Measures the volumes that matter (the adapter: daemon/metrics/disk-space.ts). */
export interface DiskProbe {
  volumes(): Promise<DiskVolume[]>;
}
