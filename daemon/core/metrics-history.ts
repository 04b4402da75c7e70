// Metrics history: every 10 s the daemon samples each service's containers and the host (the
// HistorySource port), writes the 10 s points, and the 1 min and 10 min averages as their buckets
// close (core/metrics-tiers.ts); once a minute each tier is pruned to its span and a deleted
// service's series go. A tick that finds the previous one still running is skipped, so a slow
// Engine never piles samples up. Reads: a service's points (keys of its project), the host's and
// Berth's own footprint (keys over all projects).
import type { BerthFootprint, HostMetricsHistory, HostMetricsPoint, MetricsRangeQuery, MetricsStep, ServiceMetricsHistory, ServiceMetricsPoint } from '../../shared/types.js';
import { type Access, visibleService } from './access.js';
import type { Clock } from './clock.js';
import { InvalidInput } from './errors.js';
import type { MetricAlerts } from './metric-alerts.js';
import { defaultStep, HOST_SERIES, type Point, pruneBounds, Rollups, SAMPLE_MS, tierOf, TIERS } from './metrics-tiers.js';
import type { FootprintProbe, HistorySource, MetricsRepo } from './ports/metrics-history.js';
import type { Store } from './ports/store.js';

const PRUNE_EVERY_MS = 60_000;
/** A range longer than the longest tier's span has nothing more to show. */
const MAX_RANGE_MS = TIERS[TIERS.length - 1]!.keepMs;

export interface MetricsHistoryDeps {
  repo: MetricsRepo;
  store: Store;
  clock: Clock;
  source: HistorySource;
  footprint: FootprintProbe;
  alerts: MetricAlerts;
  log: (message: string, err?: unknown) => void;
}

export type TickResult = 'sampled' | 'skipped';

export class MetricsHistory {
  private rollups = new Rollups();
  private inFlight: Promise<void> | null = null;
  private lastPruneMs = 0;
  private lastErrors = new Set<string>();

  constructor(private readonly d: MetricsHistoryDeps) {}

  /** One sampling round (the server's timer calls it every 10 s; tests call it on a driven clock). */
  async tick(): Promise<TickResult> {
    if (this.inFlight) return 'skipped';
    this.inFlight = this.sampleOnce().finally(() => {
      this.inFlight = null;
    });
    await this.inFlight;
    return 'sampled';
  }

  /** Resolves once the round under way (if any) has written what it sampled: the store closes after it. */
  async settled(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
  }

  private async sampleOnce(): Promise<void> {
    const sample = await this.d.source.sample();
    // an error is logged when it starts, not every 10 s while it lasts (an Engine that is down)
    for (const e of sample.errors) if (!this.lastErrors.has(e)) this.d.log(`metrics history: ${e}`);
    this.lastErrors = new Set(sample.errors);
    const nowMs = Date.parse(this.d.clock.now());
    await this.record(nowMs, sample.host, sample.services);
    await this.d.alerts.evaluate(nowMs, sample.host, sample.services);
  }

  /** Writes one round's raw points and the averages it closed; prunes once a minute. */
  async record(nowMs: number, host: Point['values'] | null, services: readonly { serviceId: string; values: Point['values'] }[]): Promise<void> {
    const atMs = nowMs - (nowMs % SAMPLE_MS);
    const raw: Point[] = services.map((s) => ({ series: s.serviceId, tierMs: SAMPLE_MS, atMs, values: s.values }));
    if (host) raw.push({ series: HOST_SERIES, tierMs: SAMPLE_MS, atMs, values: host });
    const points = [...raw];
    for (const p of raw) points.push(...this.rollups.add(p.series, p.atMs, p.values));
    points.push(...this.rollups.flush(atMs - SAMPLE_MS));
    await this.d.repo.insert(points);
    if (nowMs - this.lastPruneMs >= PRUNE_EVERY_MS) {
      this.lastPruneMs = nowMs;
      await this.prune(nowMs);
    }
  }

  private async prune(nowMs: number): Promise<void> {
    await this.d.repo.prune(pruneBounds(nowMs));
    const services = new Set((await this.d.store.services.list()).map((s) => s.id));
    services.add(HOST_SERIES);
    this.rollups.forget((series) => services.has(series));
    this.d.alerts.forget((series) => services.has(series));
    await this.d.repo.keepOnly([...services]);
  }

  async service(access: Access, serviceId: string, query: MetricsRangeQuery): Promise<ServiceMetricsHistory> {
    const range = this.range(query);
    await visibleService(this.d.store, access, serviceId);
    const points = await this.d.repo.range(serviceId, tierOf(range.step).ms, range.fromMs, range.toMs);
    return { serviceId, step: range.step, points: points.map(servicePoint) };
  }

  async host(access: Access, query: MetricsRangeQuery): Promise<HostMetricsHistory> {
    access.requireAllProjects("reading the host's metrics history");
    const range = this.range(query);
    const points = await this.d.repo.range(HOST_SERIES, tierOf(range.step).ms, range.fromMs, range.toMs);
    return { step: range.step, points: points.map(hostPoint) };
  }

  async footprint(access: Access): Promise<BerthFootprint> {
    access.requireAllProjects("reading Berth's footprint");
    const [probe, metricsRows] = await Promise.all([this.d.footprint.read(), this.d.repo.count()]);
    return { ...probe, metricsRows };
  }

  private range(query: MetricsRangeQuery): { fromMs: number; toMs: number; step: MetricsStep } {
    const nowMs = Date.parse(this.d.clock.now());
    const toMs = query.to === undefined ? nowMs : isoMs(query.to, 'to');
    const fromMs = query.from === undefined ? toMs - 3_600_000 : isoMs(query.from, 'from');
    if (fromMs > toMs) throw new InvalidInput('from must not be after to');
    if (toMs - fromMs > MAX_RANGE_MS) throw new InvalidInput('the range must be at most 30 days (the longest kept)');
    return { fromMs, toMs, step: query.step ?? defaultStep(fromMs, nowMs) };
  }
}

function isoMs(value: string, name: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new InvalidInput(`${name} must be an ISO 8601 time such as 2026-01-31T12:00:00Z`);
  return ms;
}

const r2 = (v: number) => Math.round(v * 100) / 100;
const whole = (v: number) => Math.round(v);

function servicePoint(p: Point): ServiceMetricsPoint {
  const v = p.values;
  return {
    at: new Date(p.atMs).toISOString(),
    cpuPercent: r2(v.cpu),
    memoryBytes: whole(v.mem),
    memoryLimitBytes: whole(v.memLimit),
    networkRxBytesPerSec: whole(v.rx),
    networkTxBytesPerSec: whole(v.tx),
    blockReadBytesPerSec: whole(v.blkRead),
    blockWriteBytesPerSec: whole(v.blkWrite),
  };
}

function hostPoint(p: Point): HostMetricsPoint {
  const v = p.values;
  return {
    at: new Date(p.atMs).toISOString(),
    cpuPercent: r2(v.cpu),
    memoryUsedBytes: whole(v.mem),
    memoryTotalBytes: whole(v.memLimit),
    diskUsedBytes: whole(v.diskUsed),
    diskTotalBytes: whole(v.diskTotal),
    networkRxBytesPerSec: whole(v.rx),
    networkTxBytesPerSec: whole(v.tx),
  };
}
