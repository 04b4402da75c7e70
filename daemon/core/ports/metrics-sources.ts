// Where host and container metrics come from (the adapter: daemon/metrics/sources.ts).
import type { DiskMetrics, HostCpuMetrics, HostMemoryMetrics, NetworkMetrics, ServiceContainerMetrics } from '../../../shared/types.js';

/** An error line and the project it concerns (null: the host's), so keys see only their own. */
export interface ScopedError {
  projectId: string | null;
  message: string;
}

export interface MetricsSources {
  cpu(): Promise<HostCpuMetrics>;
  memory(): Promise<HostMemoryMetrics>;
  disks(): Promise<DiskMetrics[]>;
  network(): Promise<NetworkMetrics[]>;
  /** Running containers of known services, with the project each service belongs to now. */
  services(): Promise<{ services: ServiceContainerMetrics[]; errors: ScopedError[] }>;
}
