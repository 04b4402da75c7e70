// Metrics history's tiers, as pure code: 10 s points kept one hour, 1 min averages kept 24 hours,
// 10 min averages kept 30 days. The rollup averages what went in (every 10 s point counts once in
// its 1 min and its 10 min bucket: a 10 min average is the average of its raw points, not of
// averages), so a bucket is written once, when the first point of the next bucket arrives.
import type { MetricsStep } from '../../shared/types.js';

/** One sample's numbers; a series uses the ones it has (a service has no disk, the host no block I/O). */
export interface SeriesValues {
  cpu: number;
  mem: number;
  memLimit: number;
  rx: number;
  tx: number;
  blkRead: number;
  blkWrite: number;
  diskUsed: number;
  diskTotal: number;
}

const VALUE_KEYS = ['cpu', 'mem', 'memLimit', 'rx', 'tx', 'blkRead', 'blkWrite', 'diskUsed', 'diskTotal'] as const satisfies readonly (keyof SeriesValues)[];

/** The host's series; a service's series is its id. */
export const HOST_SERIES = 'host';

export interface Tier {
  step: MetricsStep;
  ms: number;
  keepMs: number;
}

const HOUR = 3_600_000;
export const TIERS: readonly Tier[] = [
  { step: '10s', ms: 10_000, keepMs: HOUR },
  { step: '1m', ms: 60_000, keepMs: 24 * HOUR },
  { step: '10m', ms: 600_000, keepMs: 30 * 24 * HOUR },
];
export const SAMPLE_MS = TIERS[0]!.ms;

/**
 * Rows one series holds at most: each tier's span over its step, plus the bucket on each edge
 * (pruning runs once a minute). 360 + 1,440 + 4,320 + 3 = 6,123.
 */
export const ROWS_PER_SERIES = TIERS.reduce((n, t) => n + t.keepMs / t.ms + 1, 0);

export function tierOf(step: MetricsStep): Tier {
  return TIERS.find((t) => t.step === step)!;
}

/** The finest tier whose kept span still reaches back to `fromMs`. */
export function defaultStep(fromMs: number, nowMs: number): MetricsStep {
  return (TIERS.find((t) => fromMs >= nowMs - t.keepMs) ?? TIERS[TIERS.length - 1]!).step;
}

export interface Point {
  series: string;
  /** The tier's step in ms (10 s for raw points). */
  tierMs: number;
  /** The start of the bucket, in ms since the epoch. */
  atMs: number;
  values: SeriesValues;
}

interface Bucket {
  atMs: number;
  sums: SeriesValues;
  n: number;
}

export function zeroValues(): SeriesValues {
  return { cpu: 0, mem: 0, memLimit: 0, rx: 0, tx: 0, blkRead: 0, blkWrite: 0, diskUsed: 0, diskTotal: 0 };
}

export function averageOf(values: readonly SeriesValues[]): SeriesValues {
  const sums = zeroValues();
  for (const v of values) for (const k of VALUE_KEYS) sums[k] += v[k];
  for (const k of VALUE_KEYS) sums[k] = values.length === 0 ? 0 : sums[k] / values.length;
  return sums;
}

/** The 1 min and 10 min averages in the making, per series; fed every raw point in time order. */
export class Rollups {
  private open = new Map<string, Bucket>();

  /** Adds a raw point; answers the averages of the buckets it closed. */
  add(series: string, atMs: number, values: SeriesValues): Point[] {
    const closed: Point[] = [];
    for (const tier of TIERS.slice(1)) {
      const key = `${tier.ms}:${series}`;
      const bucketAt = atMs - (atMs % tier.ms);
      let bucket = this.open.get(key);
      if (bucket && bucket.atMs !== bucketAt) {
        closed.push(averaged(series, tier.ms, bucket));
        bucket = undefined;
      }
      if (!bucket) {
        bucket = { atMs: bucketAt, sums: zeroValues(), n: 0 };
        this.open.set(key, bucket);
      }
      for (const k of VALUE_KEYS) bucket.sums[k] += values[k];
      bucket.n += 1;
    }
    return closed;
  }

  /** Closes every bucket whose span ended by `nowMs` (a series that stopped reporting). */
  flush(nowMs: number): Point[] {
    const closed: Point[] = [];
    for (const [key, bucket] of this.open) {
      const [ms, ...rest] = key.split(':');
      if (bucket.atMs + Number(ms) > nowMs) continue;
      closed.push(averaged(rest.join(':'), Number(ms), bucket));
      this.open.delete(key);
    }
    return closed;
  }

  /** A deleted service's open buckets go with its series. */
  forget(keep: (series: string) => boolean): void {
    for (const key of this.open.keys()) if (!keep(key.slice(key.indexOf(':') + 1))) this.open.delete(key);
  }
}

function averaged(series: string, tierMs: number, b: Bucket): Point {
  const values = zeroValues();
  for (const k of VALUE_KEYS) values[k] = b.sums[k] / b.n;
  return { series, tierMs, atMs: b.atMs, values };
}

/** Per tier, the oldest bucket start kept at `nowMs`. */
export function pruneBounds(nowMs: number): { tierMs: number; beforeMs: number }[] {
  return TIERS.map((t) => ({ tierMs: t.ms, beforeMs: nowMs - t.keepMs }));
}

/** Hours until `total` is reached at the least-squares trend of (ms, used) readings; null when not filling. */
export function hoursUntilFull(readings: readonly { atMs: number; used: number }[], total: number): number | null {
  if (readings.length < 2) return null;
  const n = readings.length;
  const mx = readings.reduce((s, r) => s + r.atMs, 0) / n;
  const my = readings.reduce((s, r) => s + r.used, 0) / n;
  let num = 0;
  let den = 0;
  for (const r of readings) {
    num += (r.atMs - mx) * (r.used - my);
    den += (r.atMs - mx) ** 2;
  }
  if (den === 0) return null;
  const perMs = num / den;
  if (perMs <= 0) return null;
  const last = readings[n - 1]!;
  const usedNow = my + perMs * (last.atMs - mx);
  return Math.max(0, (total - usedNow) / perMs / HOUR);
}
