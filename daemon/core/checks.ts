// The uptime-check use cases: list, get, create, patch (pause/resume is `enabled`), delete, run now,
// results, uptime buckets and incidents. The key and the service are checked here; a check only
// ever targets the service's own domain or its host port (no URL is accepted). The probe and the
// timers are the scheduler's (daemon/checks/), behind CheckSchedulePort.
import type { Check, CheckIncident, CheckPatch, CheckResult, NewCheckInput, UptimeBucket } from '../../shared/types/checks.js';
import type { ChangeAction } from '../../shared/events.js';
import { visibleService, type Access } from './access.js';
import { CHECK_DEFAULTS, DAILY_KEPT_DAYS, MAX_CHECKS_PER_SERVICE, validateCheckSettings } from './check-states.js';
import type { Clock } from './clock.js';
import { InvalidInput, NotFound } from './errors.js';
import type { EventSink } from './events.js';
import { newId } from './ids.js';
import type { CheckRecord, CheckSchedulePort, CheckSettings } from './ports/checks.js';
import type { Store } from './ports/store.js';
import type { ServiceRecord } from './records.js';

export interface ChecksDeps {
  store: Store;
  clock: Clock;
  events: EventSink;
  schedule: CheckSchedulePort;
}

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const INCIDENTS_LISTED = 100;

export class Checks {
  constructor(private readonly d: ChecksDeps) {}

  async list(access: Access, serviceId: string): Promise<Check[]> {
    const service = await visibleService(this.d.store, access, serviceId);
    const checks = await this.d.store.checks.listByService(service.id);
    return Promise.all(checks.map((c) => this.view(service, c)));
  }

  async get(access: Access, serviceId: string, checkId: string): Promise<Check> {
    const { service, check } = await this.find(access, serviceId, checkId);
    return this.view(service, check);
  }

  async create(access: Access, serviceId: string, input: NewCheckInput): Promise<Check> {
    access.requireWrite();
    const service = await visibleService(this.d.store, access, serviceId);
    if (service.kind === 'database') throw new InvalidInput('uptime checks are HTTP checks of a web service; a database service cannot have them', 'not_for_databases');
    const existing = await this.d.store.checks.listByService(service.id);
    if (existing.length >= MAX_CHECKS_PER_SERVICE) throw new InvalidInput(`the cap of ${MAX_CHECKS_PER_SERVICE} checks per service was reached`, 'too_many_checks');
    const target = input.target ?? (await this.defaultTarget(service));
    const settings = await this.settings(service, {
      name: input.name ?? (await this.defaultName(service, target, input.path ?? CHECK_DEFAULTS.path)),
      target,
      path: input.path ?? CHECK_DEFAULTS.path,
      expectedStatus: input.expectedStatus === undefined ? CHECK_DEFAULTS.expectedStatus : input.expectedStatus,
      keyword: input.keyword ?? null,
      intervalSeconds: input.intervalSeconds ?? CHECK_DEFAULTS.intervalSeconds,
      timeoutSeconds: input.timeoutSeconds ?? Math.min(CHECK_DEFAULTS.timeoutSeconds, (input.intervalSeconds ?? CHECK_DEFAULTS.intervalSeconds) - 1),
      failuresBeforeIncident: input.failuresBeforeIncident ?? CHECK_DEFAULTS.failuresBeforeIncident,
      enabled: input.enabled ?? true,
    });
    const check: CheckRecord = {
      id: newId(),
      serviceId: service.id,
      ...settings,
      status: settings.enabled ? 'pending' : 'paused',
      lastCheckedAt: null,
      lastResponseMs: null,
      lastError: null,
      certificateDaysLeft: null,
      consecutiveFailures: 0,
      openIncidentId: null,
      createdAt: this.d.clock.now(),
    };
    await this.d.store.checks.insert(check);
    this.d.schedule.arm(check);
    this.changed(service, check, 'created');
    return this.view(service, check);
  }

  async patch(access: Access, serviceId: string, checkId: string, patch: CheckPatch): Promise<Check> {
    access.requireWrite();
    const { service, check } = await this.find(access, serviceId, checkId);
    const merged = { ...pickSettings(check), ...definedOnly(patch) };
    const settings = await this.settings(service, merged);
    const status = !settings.enabled ? 'paused' : check.status === 'paused' ? 'pending' : check.status;
    await this.d.store.checks.updateSettings(check.id, { ...settings, status });
    const next: CheckRecord = { ...check, ...settings, status };
    this.d.schedule.arm(next);
    this.changed(service, next, 'updated');
    return this.view(service, next);
  }

  /** Deletes the check with its results, rollups and incidents. */
  async delete(access: Access, serviceId: string, checkId: string): Promise<void> {
    access.requireWrite();
    const { service, check } = await this.find(access, serviceId, checkId);
    this.d.schedule.disarm(check.id);
    await this.d.store.checks.delete(check.id);
    this.changed(service, check, 'deleted');
  }

  /** Probes now (the answer does not wait for the result: a `check` event or a GET tells it). */
  async run(access: Access, serviceId: string, checkId: string): Promise<Check> {
    access.requireWrite();
    const { service, check } = await this.find(access, serviceId, checkId);
    if (!check.enabled) throw new InvalidInput('the check is paused: resume it first', 'check_paused');
    this.d.schedule.runNow(check.id);
    return this.view(service, check);
  }

  /** Raw results in [from, to] (default: the last 24 hours; raw results are kept 48 hours). */
  async results(access: Access, serviceId: string, checkId: string, range: { from?: string; to?: string }): Promise<CheckResult[]> {
    const { check } = await this.find(access, serviceId, checkId);
    const now = Date.parse(this.d.clock.now());
    const to = range.to ?? new Date(now).toISOString();
    const from = range.from ?? new Date(Date.parse(to) - DAY).toISOString();
    if (Date.parse(from) > Date.parse(to)) throw new InvalidInput('from: must not be after to', 'invalid_range');
    return this.d.store.checks.results(check.id, from, to);
  }

  /** 24 hourly buckets (the last 24 h, from raw results) or 90 daily ones (from the daily rollups), oldest first. */
  async uptime(access: Access, serviceId: string, checkId: string, range: '24h' | '90d'): Promise<UptimeBucket[]> {
    const { check } = await this.find(access, serviceId, checkId);
    const now = Date.parse(this.d.clock.now());
    if (range === '24h') {
      const end = Math.floor(now / HOUR) * HOUR + HOUR;
      const start = end - 24 * HOUR;
      const results = await this.d.store.checks.results(check.id, new Date(start).toISOString(), new Date(end).toISOString());
      const buckets = Array.from({ length: 24 }, (_, i) => ({ from: start + i * HOUR, checks: 0, up: 0, ms: 0, answered: 0 }));
      for (const r of results) {
        const b = buckets[Math.floor((Date.parse(r.at) - start) / HOUR)];
        if (!b) continue;
        b.checks++;
        if (r.ok) b.up++;
        if (r.responseMs !== null) {
          b.ms += r.responseMs;
          b.answered++;
        }
      }
      return buckets.map((b) => bucket(b.from, b.from + HOUR, b.checks, b.up, b.answered ? b.ms / b.answered : null));
    }
    const end = Math.floor(now / DAY) * DAY + DAY;
    const start = end - DAILY_KEPT_DAYS * DAY;
    const rows = new Map((await this.d.store.checks.daily(check.id, new Date(start).toISOString().slice(0, 10))).map((r) => [r.day, r]));
    return Array.from({ length: DAILY_KEPT_DAYS }, (_, i) => {
      const from = start + i * DAY;
      const r = rows.get(new Date(from).toISOString().slice(0, 10));
      return bucket(from, from + DAY, r?.checks ?? 0, r?.up ?? 0, r && r.responses > 0 ? r.responseMsSum / r.responses : null);
    });
  }

  async incidents(access: Access, serviceId: string, checkId: string): Promise<CheckIncident[]> {
    const { check } = await this.find(access, serviceId, checkId);
    return (await this.d.store.checks.incidents(check.id, INCIDENTS_LISTED)).map((i) => ({ ...i }));
  }

  /** The daemon's start: every enabled check armed from its row (an incident left open stays open until a success). */
  startSchedule(): Promise<void> {
    return this.d.schedule.start();
  }

  stopSchedule(): Promise<void> {
    return this.d.schedule.stop();
  }

  private async find(access: Access, serviceId: string, checkId: string): Promise<{ service: ServiceRecord; check: CheckRecord }> {
    const service = await visibleService(this.d.store, access, serviceId);
    const check = await this.d.store.checks.get(checkId);
    if (!check || check.serviceId !== service.id) throw new NotFound('check not found');
    return { service, check };
  }

  /** The service's first domain, else its host port. */
  private async defaultTarget(service: ServiceRecord): Promise<CheckSettings['target']> {
    const [domain] = await this.d.store.domains.listByServices([service.id]);
    if (domain) return { kind: 'domain', domainId: domain.id };
    if (service.hostPort !== null) return { kind: 'port' };
    throw new InvalidInput('target: the service has no domain and no host port to check', 'no_target');
  }

  private async defaultName(service: ServiceRecord, target: CheckSettings['target'], path: string): Promise<string> {
    const host = target.kind === 'domain' ? (await this.d.store.domains.get(service.id, target.domainId))?.hostname : `port ${service.hostPort ?? ''}`;
    return `${host ?? 'check'}${path === '/' ? '' : path}`.slice(0, 63);
  }

  /** Validates the settings, and that a domain target is one of this service's domains. */
  private async settings(service: ServiceRecord, s: CheckSettings): Promise<CheckSettings> {
    validateCheckSettings(s, this.d.schedule.minIntervalSeconds);
    if (s.target.kind === 'domain' && !(await this.d.store.domains.get(service.id, s.target.domainId))) throw new InvalidInput("target.domainId: not one of this service's domains", 'unknown_domain');
    if (s.target.kind === 'port' && service.hostPort === null) throw new InvalidInput('target: the service has no host port', 'no_host_port');
    return s;
  }

  private changed(service: ServiceRecord, check: CheckRecord, action: ChangeAction): void {
    this.d.events.publish({ type: 'check', projectId: service.projectId, data: { checkId: check.id, serviceId: service.id, projectId: service.projectId, status: check.status, action } });
  }

  private async view(service: ServiceRecord, c: CheckRecord): Promise<Check> {
    const now = Date.parse(this.d.clock.now());
    const recent = await this.d.store.checks.results(c.id, new Date(now - DAY).toISOString(), new Date(now).toISOString());
    const daily = await this.d.store.checks.daily(c.id, new Date(now - DAILY_KEPT_DAYS * DAY).toISOString().slice(0, 10));
    const total = daily.reduce((n, r) => n + r.checks, 0);
    return {
      id: c.id,
      serviceId: c.serviceId,
      projectId: service.projectId,
      name: c.name,
      target: c.target,
      path: c.path,
      expectedStatus: c.expectedStatus,
      keyword: c.keyword,
      intervalSeconds: c.intervalSeconds,
      timeoutSeconds: c.timeoutSeconds,
      failuresBeforeIncident: c.failuresBeforeIncident,
      enabled: c.enabled,
      status: c.status,
      lastCheckedAt: c.lastCheckedAt,
      lastResponseMs: c.lastResponseMs,
      lastError: c.lastError,
      certificateDaysLeft: c.certificateDaysLeft,
      uptime24h: recent.length ? recent.filter((r) => r.ok).length / recent.length : null,
      uptime90d: total ? daily.reduce((n, r) => n + r.up, 0) / total : null,
      openIncidentId: c.openIncidentId,
      createdAt: c.createdAt,
    };
  }
}

function bucket(from: number, to: number, checks: number, up: number, avg: number | null): UptimeBucket {
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), checks, up, avgResponseMs: avg === null ? null : Math.round(avg) };
}

function pickSettings(c: CheckRecord): CheckSettings {
  const { name, target, path, expectedStatus, keyword, intervalSeconds, timeoutSeconds, failuresBeforeIncident, enabled } = c;
  return { name, target, path, expectedStatus, keyword, intervalSeconds, timeoutSeconds, failuresBeforeIncident, enabled };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
