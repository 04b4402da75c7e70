// System metrics (GET /api/system/metrics). Rates are averages since the previous collection;
// a part that could not be read is null and named in `errors`.

import type { Timestamp } from './common.js';

export interface HostCpuMetrics {
  cores: number;
  loadPercent: number;
}

export interface HostMemoryMetrics {
  totalBytes: number;
  usedBytes: number;
}

export interface DiskMetrics {
  mount: string;
  totalBytes: number;
  usedBytes: number;
}

export interface NetworkMetrics {
  iface: string;
  rxBytesPerSecond: number;
  txBytesPerSecond: number;
}

export interface ServiceContainerMetrics {
  serviceId: string;
  projectId: string;
  deploymentId: string;
  containerName: string;
  /** Of one core (100 = one core busy); null on the first sample of a container. */
  cpuPercent: number | null;
  memoryBytes: number;
  memoryLimitBytes: number;
}

export interface SystemMetrics {
  collectedAt: Timestamp;
  host: {
    cpu: HostCpuMetrics | null;
    memory: HostMemoryMetrics | null;
    disks: DiskMetrics[] | null;
    network: NetworkMetrics[] | null;
  };
  services: ServiceContainerMetrics[] | null;
  errors: string[];
}
