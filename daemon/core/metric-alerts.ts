// Threshold alerts on metrics (a server setting, keys over all projects): a service's or the host's
// CPU or memory above a percentage, or the data disk's trend saying it fills within some hours.
// A condition must hold for `forMinutes` before the alert fires; it fires once, and resolves once
// when the condition no longer holds. Each change is a `metric-alert` event, which the notifier
// turns into a `metric_alert` notice. Which alerts are firing is kept in the settings, so a restart
// neither fires again an alert that still holds nor forgets to resolve one that cleared meanwhile.
import type { MetricAlertKind, MetricAlertSettings } from '../../shared/types.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { InvalidInput } from './errors.js';
import type { EventSink } from './events.js';
import { HOST_SERIES, hoursUntilFull, type SeriesValues } from './metrics-tiers.js';
import type { SettingsRepo, Store } from './ports/store.js';

const SETTING = 'metricAlerts';
/** The alerts firing now: `[key, sinceMs]` pairs (key = `<kind>:<series>`). */
export const FIRING_SETTING = 'metricAlertsFiring';
const DEFAULT_METRIC_ALERTS: MetricAlertSettings = { cpuPercent: 90, memoryPercent: 90, forMinutes: 5, diskFullHours: 24 };
/** The disk trend is read over this much history, and needs at least the minimum of it. */
const DISK_TREND_MS = 6 * 3_600_000;
const DISK_TREND_MIN_MS = 30 * 60_000;

interface Condition {
  /** When the condition started to hold, or null. */
  sinceMs: number | null;
  firing: boolean;
}

export class MetricAlerts {
  private conditions = new Map<string, Condition>();
  /** Set once the firing alerts were read back from the settings (the first round after a start). */
  private restored = false;
  private firingChanged = false;
  private disk: { atMs: number; used: number }[] = [];
  private cached: MetricAlertSettings | null = null;

  constructor(
    private readonly d: {
      settings: SettingsRepo;
      store: Store;
      clock: Clock;
      events: EventSink;
    },
  ) {}

  async get(access: Access): Promise<MetricAlertSettings> {
    access.requireAllProjects('reading the metric alerts');
    return this.settings();
  }

  async patch(access: Access, input: Partial<MetricAlertSettings>): Promise<MetricAlertSettings> {
    access.requireWrite();
    access.requireAllProjects('changing the metric alerts');
    const next = { ...(await this.settings()), ...input };
    percentOrNull(next.cpuPercent, 'cpuPercent', 1000);
    percentOrNull(next.memoryPercent, 'memoryPercent', 100);
    if (!Number.isInteger(next.forMinutes) || next.forMinutes < 0 || next.forMinutes > 1440) throw new InvalidInput('forMinutes must be a whole number from 0 to 1440');
    if (next.diskFullHours !== null && (!Number.isFinite(next.diskFullHours) || next.diskFullHours <= 0 || next.diskFullHours > 24 * 365)) {
      throw new InvalidInput('diskFullHours must be a number of hours from 1 to 8760, or null to turn the disk warning off');
    }
    await this.d.settings.set(SETTING, JSON.stringify(next), this.d.clock.now());
    this.cached = next;
    return next;
  }

  private async settings(): Promise<MetricAlertSettings> {
    if (this.cached) return this.cached;
    const stored = await this.d.settings.get(SETTING);
    this.cached = stored === null ? { ...DEFAULT_METRIC_ALERTS } : { ...DEFAULT_METRIC_ALERTS, ...(JSON.parse(stored) as Partial<MetricAlertSettings>) };
    return this.cached;
  }

  /** One sampling round's values against the thresholds. */
  async evaluate(nowMs: number, host: SeriesValues | null, services: readonly { serviceId: string; values: SeriesValues }[]): Promise<void> {
    const s = await this.settings();
    await this.restoreFiring();
    const holdMs = s.forMinutes * 60_000;
    const projectOf = services.length === 0 ? new Map<string, string>() : new Map((await this.d.store.services.list()).map((r) => [r.id, r.projectId]));
    const check = (series: string, kind: MetricAlertKind, value: number | null, threshold: number | null, over: boolean) => {
      const projectId = series === HOST_SERIES ? null : (projectOf.get(series) ?? null);
      if (series !== HOST_SERIES && projectId === null) return;
      this.step(nowMs, holdMs, { series, kind, projectId, value, threshold: threshold ?? 0 }, threshold !== null && over);
    };
    for (const { serviceId, values } of services) {
      check(serviceId, 'cpu', values.cpu, s.cpuPercent, s.cpuPercent !== null && values.cpu > s.cpuPercent);
      const memPercent = values.memLimit > 0 ? (values.mem / values.memLimit) * 100 : 0;
      check(serviceId, 'memory', memPercent, s.memoryPercent, s.memoryPercent !== null && memPercent > s.memoryPercent);
    }
    if (host) {
      check(HOST_SERIES, 'cpu', host.cpu, s.cpuPercent, s.cpuPercent !== null && host.cpu > s.cpuPercent);
      const memPercent = host.memLimit > 0 ? (host.mem / host.memLimit) * 100 : 0;
      check(HOST_SERIES, 'memory', memPercent, s.memoryPercent, s.memoryPercent !== null && memPercent > s.memoryPercent);
      this.disk.push({ atMs: nowMs, used: host.diskUsed });
      while (this.disk.length > 0 && this.disk[0]!.atMs < nowMs - DISK_TREND_MS) this.disk.shift();
      const enough = this.disk.length > 1 && nowMs - this.disk[0]!.atMs >= DISK_TREND_MIN_MS;
      const hours = enough ? hoursUntilFull(this.disk, host.diskTotal) : null;
      check(HOST_SERIES, 'disk-full', hours === null ? null : Math.round(hours * 10) / 10, s.diskFullHours, hours !== null && s.diskFullHours !== null && hours < s.diskFullHours);
    }
    await this.saveFiring();
  }

  private async restoreFiring(): Promise<void> {
    if (this.restored) return;
    this.restored = true;
    const stored = await this.d.settings.get(FIRING_SETTING);
    if (stored === null) return;
    try {
      for (const [key, sinceMs] of JSON.parse(stored) as [string, number][]) this.conditions.set(key, { sinceMs, firing: true });
    } catch {
      // an unreadable entry is as good as none: an alert that still holds fires again
    }
  }

  private async saveFiring(): Promise<void> {
    if (!this.firingChanged) return;
    this.firingChanged = false;
    const firing = [...this.conditions].filter(([, c]) => c.firing).map(([key, c]) => [key, c.sinceMs ?? 0]);
    await this.d.settings.set(FIRING_SETTING, JSON.stringify(firing), this.d.clock.now());
  }

  /** A deleted service's conditions go with its series (an alert of a gone service never resolves). */
  forget(keep: (series: string) => boolean): void {
    for (const [key, c] of this.conditions) {
      if (keep(key.slice(key.indexOf(':') + 1))) continue;
      this.conditions.delete(key);
      if (c.firing) this.firingChanged = true; // saved with the next round
    }
  }

  private step(nowMs: number, holdMs: number, a: { series: string; kind: MetricAlertKind; projectId: string | null; value: number | null; threshold: number }, holds: boolean): void {
    const key = `${a.kind}:${a.series}`;
    const c = this.conditions.get(key) ?? { sinceMs: null, firing: false };
    this.conditions.set(key, c);
    if (holds) {
      c.sinceMs ??= nowMs;
      if (!c.firing && nowMs - c.sinceMs >= holdMs) {
        c.firing = true;
        this.firingChanged = true;
        this.publish(a, 'firing');
      }
      return;
    }
    c.sinceMs = null;
    if (c.firing) {
      c.firing = false;
      this.firingChanged = true;
      this.publish(a, 'resolved');
    }
  }

  private publish(a: { series: string; kind: MetricAlertKind; projectId: string | null; value: number | null; threshold: number }, state: 'firing' | 'resolved'): void {
    const serviceId = a.series === HOST_SERIES ? null : a.series;
    const value = a.value === null ? null : Math.round(a.value * 10) / 10;
    this.d.events.publish({ type: 'metric-alert', allProjects: true, data: { alertKind: a.kind, state, serviceId, projectId: a.projectId, value, threshold: a.threshold } });
  }
}

function percentOrNull(v: number | null, name: string, max: number): void {
  if (v === null) return;
  if (!Number.isFinite(v) || v <= 0 || v > max) throw new InvalidInput(`${name} must be a number above 0 and at most ${max}, or null to turn the alert off`);
}
