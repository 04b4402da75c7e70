// One metrics snapshot for everyone: host and container metrics are collected at most once per
// cache window, and callers that arrive while a collection runs wait for that one. The snapshot is
// unfiltered; each request narrows it to the projects its key can see (viewFor). A part that fails
// or hangs becomes null with a line in `errors`; collecting never throws.
// The sources are a port: daemon/metrics/sources.ts reads the host and the Engine.
import type { SystemMetrics } from '../../shared/types.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import type { MetricsSources, ScopedError } from './ports/metrics-sources.js';

const METRICS_CACHE_MS = 2_000;
/** A part that takes longer than this is reported as failed (its late answer is dropped). */
const PART_TIMEOUT_MS = 10_000;

export interface MetricsSnapshot extends Omit<SystemMetrics, 'errors'> {
  errors: ScopedError[];
}

export class MetricsCollector {
  private cached: { atMs: number; snapshot: MetricsSnapshot } | null = null;
  private inFlight: Promise<MetricsSnapshot> | null = null;

  private readonly cacheMs: number;
  private readonly partTimeoutMs: number;

  constructor(
    private readonly sources: MetricsSources,
    private readonly clock: Clock,
    options: { cacheMs?: number; partTimeoutMs?: number } = {},
  ) {
    this.cacheMs = options.cacheMs ?? METRICS_CACHE_MS;
    this.partTimeoutMs = options.partTimeoutMs ?? PART_TIMEOUT_MS;
  }

  /** The latest snapshot if younger than the cache window, else a new one (shared while it runs). */
  snapshot(): Promise<MetricsSnapshot> {
    if (this.cached && this.nowMs() - this.cached.atMs < this.cacheMs) return Promise.resolve(this.cached.snapshot);
    this.inFlight ??= this.collect().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async collect(): Promise<MetricsSnapshot> {
    const errors: ScopedError[] = [];
    const part = async <T>(name: string, read: () => Promise<T>): Promise<T | null> => {
      try {
        return await withTimeout(read(), this.partTimeoutMs);
      } catch (err) {
        errors.push({ projectId: null, message: `${name}: ${err instanceof Error ? err.message : String(err)}` });
        return null;
      }
    };
    const [cpu, memory, disks, network, services] = await Promise.all([
      part('host cpu', () => this.sources.cpu()),
      part('host memory', () => this.sources.memory()),
      part('host disks', () => this.sources.disks()),
      part('host network', () => this.sources.network()),
      part('services', () => this.sources.services()),
    ]);
    if (services) errors.push(...services.errors);
    const collectedAt = this.clock.now();
    const snapshot: MetricsSnapshot = { collectedAt, host: { cpu, memory, disks, network }, services: services?.services ?? null, errors };
    this.cached = { atMs: Date.parse(collectedAt), snapshot };
    return snapshot;
  }

  private nowMs(): number {
    return Date.parse(this.clock.now());
  }
}

/** GET /api/system/metrics: any key, narrowed to the projects it can see. */
export class SystemMetricsView {
  constructor(private readonly collector: MetricsCollector) {}

  async view(access: Access): Promise<SystemMetrics> {
    return viewFor(await this.collector.snapshot(), access);
  }
}

/** The snapshot as one key may see it: services and errors of its projects only. */
export function viewFor(snapshot: MetricsSnapshot, access: { canSee(projectId: string): boolean }): SystemMetrics {
  return {
    collectedAt: snapshot.collectedAt,
    host: snapshot.host,
    services: snapshot.services?.filter((s) => access.canSee(s.projectId)) ?? null,
    errors: snapshot.errors.filter((e) => e.projectId === null || access.canSee(e.projectId)).map((e) => e.message),
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  // the late answer (or failure) of a part that timed out is dropped on purpose
  void promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
