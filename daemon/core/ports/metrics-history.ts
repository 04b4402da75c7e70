// Metrics history's ports: the sampler of service containers and the host (daemon/metrics/
// history-source.ts), the store's table of points (store/metrics-repo.ts), and the footprint probe.
import type { BerthFootprint } from '../../../shared/types.js';
import type { Point, SeriesValues } from '../metrics-tiers.js';

export interface HistorySample {
  /** Null when the host could not be read this time. */
  host: SeriesValues | null;
  /** Per service, its containers summed (rates in bytes per second since the previous sample). */
  services: { serviceId: string; values: SeriesValues }[];
  /** Lines for the daemon's log (a container whose stats failed). */
  errors: string[];
}

export interface HistorySource {
  sample(): Promise<HistorySample>;
}

/** The store's points; not cached (written every 10 s, and a write must not start the read cache over). */
export interface MetricsRepo {
  insert(points: readonly Point[]): Promise<void>;
  /** One series' points of one tier with from <= at <= to, oldest first. */
  range(series: string, tierMs: number, fromMs: number, toMs: number): Promise<Point[]>;
  /** Removes each tier's points older than its bound; answers how many went. */
  prune(bounds: readonly { tierMs: number; beforeMs: number }[]): Promise<number>;
  /** Removes every series not listed (a deleted service's). */
  keepOnly(series: readonly string[]): Promise<number>;
  count(): Promise<number>;
}

export interface FootprintProbe {
  read(): Promise<Omit<BerthFootprint, 'metricsRows'>>;
}
