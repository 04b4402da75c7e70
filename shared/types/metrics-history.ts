// Metrics history (issue 30): points sampled every 10 s and kept in three tiers (10 s for 1 h,
// 1 min averages for 24 h, 10 min averages for 30 days), Berth's own footprint and the threshold
// alerts. Rates are bytes per second averaged over the point's interval.

import type { Timestamp } from './common.js';

/** The resolution of a series: 10 s points, 1 min or 10 min averages. */
export type MetricsStep = '10s' | '1m' | '10m';

export interface MetricsRangeQuery {
  /** ISO 8601; default: `to` minus one hour. */
  from?: string;
  /** ISO 8601; default: now. */
  to?: string;
  /** Default: the finest tier that still covers `from` (10s within 1 h, 1m within 24 h, else 10m). */
  step?: MetricsStep;
}

export interface ServiceMetricsPoint {
  at: Timestamp;
  /** Of one core (100 = one core busy), summed over the service's containers. */
  cpuPercent: number;
  memoryBytes: number;
  /** The sum of the containers' limits (the host's memory when unlimited). */
  memoryLimitBytes: number;
  networkRxBytesPerSec: number;
  networkTxBytesPerSec: number;
  blockReadBytesPerSec: number;
  blockWriteBytesPerSec: number;
}

export interface ServiceMetricsHistory {
  serviceId: string;
  step: MetricsStep;
  points: ServiceMetricsPoint[];
}

export interface HostMetricsPoint {
  at: Timestamp;
  /** Of all cores (100 = every core busy), like GET /api/system/metrics' loadPercent. */
  cpuPercent: number;
  memoryUsedBytes: number;
  memoryTotalBytes: number;
  /** The filesystem of Berth's data dir. */
  diskUsedBytes: number;
  diskTotalBytes: number;
  networkRxBytesPerSec: number;
  networkTxBytesPerSec: number;
}

export interface HostMetricsHistory {
  step: MetricsStep;
  points: HostMetricsPoint[];
}

export interface ProcessFootprint {
  rssBytes: number;
  /** Of one core, averaged since the previous reading (null on the first). */
  cpuPercent: number | null;
}

export interface BerthFootprint {
  daemon: ProcessFootprint;
  /** Null when no Caddy process is visible from the daemon. */
  caddy: ProcessFootprint | null;
  /** The store's files on disk (the database and its write-ahead log). */
  storeBytes: number;
  /** Rows of metrics history kept. */
  metricsRows: number;
}

export interface MetricAlertSettings {
  /** Alert when a service's (or the host's) CPU stays above this percentage; null: off. Default 90. */
  cpuPercent: number | null;
  /** Of the container's memory limit (or the host's memory); null: off. Default 90. */
  memoryPercent: number | null;
  /** How long a condition must hold before the alert fires. Default 5. */
  forMinutes: number;
  /** Warn when the data disk's trend says it fills within this many hours; null: off. Default 24. */
  diskFullHours: number | null;
}

export type MetricAlertKind = 'cpu' | 'memory' | 'disk-full';
export type MetricAlertState = 'firing' | 'resolved';
