// The one scheduler of uptime checks: a timer per enabled check (jittered, so checks armed together
// spread out), at most MAX_IN_FLIGHT probes at once (the rest wait their turn), a check never
// probed twice at once, and each probe bounded by its timeout. Every firing re-reads the check's
// row, so a check deleted (with its service or domain, by cascade) or paused stops there; the rows
// are what survives restarts and redeploys.
import type { CheckRecorder } from '../core/check-recorder.js';
import type { CheckRecord, CheckSchedulePort, ProbeOutcome } from '../core/ports/checks.js';
import type { Store } from '../core/ports/store.js';

const MAX_IN_FLIGHT = 4;
const PRUNE_EVERY_MS = 3600_000;

export interface CheckSchedulerDeps {
  store: Store;
  recorder: CheckRecorder;
  /** Probes the check's target (see daemon/checks/targets.ts). */
  probe: (check: CheckRecord) => Promise<ProbeOutcome>;
  /** BERTH_CHECK_MIN_INTERVAL_SECONDS. */
  minIntervalSeconds: number;
  log: (message: string, err?: unknown) => void;
}

export class CheckScheduler implements CheckSchedulePort {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue: string[] = [];
  private readonly inFlight = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private pruneTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly d: CheckSchedulerDeps) {}

  get minIntervalSeconds(): number {
    return this.d.minIntervalSeconds;
  }

  /** Arms every enabled check, spread over its interval. */
  async start(): Promise<void> {
    this.stopped = false;
    for (const check of await this.d.store.checks.listAll()) this.arm(check, Math.random() * Math.min(check.intervalSeconds, 10) * 1000);
    const prune = () => void this.d.recorder.prune().catch((err: unknown) => this.d.log('pruning uptime check results', err));
    prune();
    this.pruneTimer = setInterval(prune, PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  arm(check: CheckRecord, firstDelayMs = Math.random() * 1000): void {
    this.disarm(check.id);
    if (!check.enabled || this.stopped) return;
    const every = check.intervalSeconds * 1000;
    const fire = () => {
      // the next firing is set before this one runs: jitter of ±5 % keeps checks from lining up
      this.timers.set(check.id, setTimeout(fire, every * (0.95 + Math.random() * 0.1)));
      this.enqueue(check.id);
    };
    this.timers.set(check.id, setTimeout(fire, firstDelayMs));
  }

  disarm(checkId: string): void {
    const t = this.timers.get(checkId);
    if (t) clearTimeout(t);
    this.timers.delete(checkId);
  }

  runNow(checkId: string): void {
    this.enqueue(checkId);
  }

  /** Waits for probes under way (tests, and the daemon's stop). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const id of [...this.timers.keys()]) this.disarm(id);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.queue.length = 0;
    await this.settled();
  }

  private enqueue(checkId: string): void {
    if (this.stopped || this.inFlight.has(checkId) || this.queue.includes(checkId)) return;
    this.queue.push(checkId);
    this.pump();
  }

  private pump(): void {
    while (this.running.size < MAX_IN_FLIGHT && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.inFlight.add(id);
      const p = this.runOne(id)
        .catch((err: unknown) => this.d.log(`uptime check ${id}`, err))
        .finally(() => {
          this.inFlight.delete(id);
          this.running.delete(p);
          this.pump();
        });
      this.running.add(p);
    }
  }

  private async runOne(id: string): Promise<void> {
    const check = await this.d.store.checks.get(id);
    if (!check || !check.enabled) {
      this.disarm(id);
      return;
    }
    const outcome = await this.d.probe(check);
    if (this.stopped) return;
    await this.d.recorder.record(check, outcome);
  }
}
