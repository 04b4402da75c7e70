// Uptime checks, their raw results, daily rollups and incidents (migration 023). Not behind the read
// cache: a check's state changes with every result.
import type { Knex } from 'knex';
import type { CheckStatus } from '../../shared/types/checks.js';
import type { CheckRecord, CheckRunPatch, CheckSettings, ChecksRepo, DailyRollup, IncidentRecord } from '../core/ports/checks.js';

type CheckRow = {
  id: string;
  service_id: string;
  name: string;
  target_kind: 'domain' | 'port';
  domain_id: string | null;
  path: string;
  expected_status: number | null;
  keyword: string | null;
  interval_seconds: number;
  timeout_seconds: number;
  failures_before_incident: number;
  enabled: number | boolean;
  status: CheckStatus;
  last_checked_at: string | null;
  last_response_ms: number | null;
  last_error: string | null;
  certificate_days_left: number | null;
  consecutive_failures: number;
  open_incident_id: string | null;
  created_at: string;
};
type ResultRow = { at: string; ok: number | boolean; status: number | null; response_ms: number | null; error: string | null; certificate_days_left: number | null };
type IncidentRow = { id: string; check_id: string; service_id: string; started_at: string; resolved_at: string | null; cause: string; failures: number };

const toCheck = (r: CheckRow): CheckRecord => ({
  id: r.id,
  serviceId: r.service_id,
  name: r.name,
  target: r.target_kind === 'domain' && r.domain_id !== null ? { kind: 'domain', domainId: r.domain_id } : { kind: 'port' },
  path: r.path,
  expectedStatus: r.expected_status,
  keyword: r.keyword,
  intervalSeconds: r.interval_seconds,
  timeoutSeconds: r.timeout_seconds,
  failuresBeforeIncident: r.failures_before_incident,
  enabled: Boolean(r.enabled),
  status: r.status,
  lastCheckedAt: r.last_checked_at,
  lastResponseMs: r.last_response_ms,
  lastError: r.last_error,
  certificateDaysLeft: r.certificate_days_left,
  consecutiveFailures: r.consecutive_failures,
  openIncidentId: r.open_incident_id,
  createdAt: r.created_at,
});
const toIncident = (r: IncidentRow): IncidentRecord => ({
  id: r.id,
  checkId: r.check_id,
  serviceId: r.service_id,
  startedAt: r.started_at,
  resolvedAt: r.resolved_at,
  cause: r.cause,
  failures: r.failures,
});

function settingsColumns(s: CheckSettings & { status: CheckStatus }): Record<string, unknown> {
  return {
    name: s.name,
    target_kind: s.target.kind,
    domain_id: s.target.kind === 'domain' ? s.target.domainId : null,
    path: s.path,
    expected_status: s.expectedStatus,
    keyword: s.keyword,
    interval_seconds: s.intervalSeconds,
    timeout_seconds: s.timeoutSeconds,
    failures_before_incident: s.failuresBeforeIncident,
    enabled: s.enabled,
    status: s.status,
  };
}

function runColumns(p: CheckRunPatch): Record<string, unknown> {
  return {
    status: p.status,
    last_checked_at: p.lastCheckedAt,
    last_response_ms: p.lastResponseMs,
    last_error: p.lastError,
    certificate_days_left: p.certificateDaysLeft,
    consecutive_failures: p.consecutiveFailures,
    open_incident_id: p.openIncidentId,
  };
}

export function checksRepo(knex: Knex): ChecksRepo {
  return {
    async listByService(serviceId) {
      return ((await knex('checks').where({ service_id: serviceId }).orderBy('created_at')) as CheckRow[]).map(toCheck);
    },
    async listAll() {
      return ((await knex('checks').select('*')) as CheckRow[]).map(toCheck);
    },
    async get(id) {
      const row = (await knex('checks').where({ id }).first()) as CheckRow | undefined;
      return row ? toCheck(row) : null;
    },
    async insert(c) {
      await knex('checks').insert({ id: c.id, service_id: c.serviceId, ...settingsColumns(c), ...runColumns(c), created_at: c.createdAt });
    },
    async updateSettings(id, s) {
      await knex('checks').where({ id }).update(settingsColumns(s));
    },
    async updateRun(id, p) {
      // a check paused while it was probed keeps `paused`
      return (await knex('checks').where({ id, enabled: true }).update(runColumns(p))) > 0;
    },
    async delete(id) {
      return (await knex('checks').where({ id }).delete()) > 0;
    },
    async addResult(checkId, r) {
      // no transaction: two statements (the foreign key refuses a result of a deleted check first)
      await knex('check_results').insert({ check_id: checkId, at: r.at, ok: r.ok, status: r.status, response_ms: r.responseMs, error: r.error, certificate_days_left: r.certificateDaysLeft });
      await knex.raw(
        `INSERT INTO check_daily (check_id, day, checks, up, response_ms_sum, responses) VALUES (?, ?, 1, ?, ?, ?)
         ON CONFLICT (check_id, day) DO UPDATE SET checks = checks + 1, up = up + excluded.up, response_ms_sum = response_ms_sum + excluded.response_ms_sum, responses = responses + excluded.responses`,
        [checkId, r.at.slice(0, 10), r.ok ? 1 : 0, r.responseMs ?? 0, r.responseMs === null ? 0 : 1],
      );
    },
    async results(checkId, from, to) {
      const rows = (await knex('check_results')
        .select('at', 'ok', 'status', 'response_ms', 'error', 'certificate_days_left')
        .where({ check_id: checkId })
        .andWhere('at', '>=', from)
        .andWhere('at', '<=', to)
        .orderBy('at')) as ResultRow[];
      return rows.map((r) => ({ at: r.at, ok: Boolean(r.ok), status: r.status, responseMs: r.response_ms, error: r.error, certificateDaysLeft: r.certificate_days_left }));
    },
    async daily(checkId, fromDay) {
      const rows = (await knex('check_daily').where({ check_id: checkId }).andWhere('day', '>=', fromDay).orderBy('day')) as {
        day: string;
        checks: number;
        up: number;
        response_ms_sum: number;
        responses: number;
      }[];
      return rows.map((r): DailyRollup => ({ day: r.day, checks: r.checks, up: r.up, responseMsSum: r.response_ms_sum, responses: r.responses }));
    },
    async prune(before, beforeDay) {
      await knex('check_results').where('at', '<', before).delete();
      await knex('check_daily').where('day', '<', beforeDay).delete();
    },
    async insertIncident(i) {
      await knex('check_incidents').insert({ id: i.id, check_id: i.checkId, service_id: i.serviceId, started_at: i.startedAt, resolved_at: i.resolvedAt, cause: i.cause, failures: i.failures });
    },
    async updateIncident(id, p) {
      const cols: Record<string, unknown> = {};
      if (p.resolvedAt !== undefined) cols.resolved_at = p.resolvedAt;
      if (p.failures !== undefined) cols.failures = p.failures;
      if (Object.keys(cols).length > 0) await knex('check_incidents').where({ id }).update(cols);
    },
    async getIncident(id) {
      const row = (await knex('check_incidents').where({ id }).first()) as IncidentRow | undefined;
      return row ? toIncident(row) : null;
    },
    async incidents(checkId, limit) {
      return ((await knex('check_incidents').where({ check_id: checkId }).orderBy('started_at', 'desc').limit(limit)) as IncidentRow[]).map(toIncident);
    },
    async servicesWithOpenIncidents(serviceIds) {
      if (serviceIds.length === 0) return new Set();
      const rows = (await knex('checks')
        .distinct('service_id')
        .whereIn('service_id', [...serviceIds])
        .whereNotNull('open_incident_id')) as { service_id: string }[];
      return new Set(rows.map((r) => r.service_id));
    },
  };
}
