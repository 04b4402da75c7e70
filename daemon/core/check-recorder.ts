// Records one probe of an uptime check: the raw result (and its day's rollup), the check's new
// state by core/check-states.ts's rules, the incident it opens, counts or resolves, and the events
// (`check` on a status change, `incident` once when opened and once when resolved). The scheduler
// (daemon/checks/scheduler.ts) calls it after each probe; it never sees an Access.
import type { CheckResult } from '../../shared/types/checks.js';
import { DAILY_KEPT_DAYS, failureReason, nextCheckState, RESULTS_KEPT_MS } from './check-states.js';
import type { Clock } from './clock.js';
import type { EventSink } from './events.js';
import { newId } from './ids.js';
import type { CheckRecord, ProbeOutcome } from './ports/checks.js';
import type { Store } from './ports/store.js';

const IN_PROGRESS = new Set(['queued', 'building']);

export class CheckRecorder {
  constructor(private readonly d: { store: Store; clock: Clock; events: EventSink }) {}

  /** Whether the service has a deployment queued or building (its failures then do not count). */
  async deploying(serviceId: string): Promise<boolean> {
    return (await this.d.store.deployments.listByService(serviceId)).some((dep) => IN_PROGRESS.has(dep.status));
  }

  /** Drops raw results past 48 hours and daily rollups past 90 days (the scheduler calls it hourly). */
  async prune(): Promise<void> {
    const now = Date.parse(this.d.clock.now());
    await this.d.store.checks.prune(new Date(now - RESULTS_KEPT_MS).toISOString(), new Date(now - DAILY_KEPT_DAYS * 86_400_000).toISOString().slice(0, 10));
  }

  async record(check: CheckRecord, outcome: ProbeOutcome): Promise<void> {
    const { store, events } = this.d;
    // `check` is the row the scheduler read just before the probe
    const current = check;
    const service = await store.services.get(current.serviceId);
    if (!current.enabled || !service) return;
    const at = this.d.clock.now();
    const reason = failureReason(outcome, current.expectedStatus);
    const ok = reason === null;
    const result: CheckResult = { at, ok, status: outcome.status, responseMs: outcome.responseMs, error: reason, certificateDaysLeft: outcome.certificateDaysLeft };
    try {
      await store.checks.addResult(current.id, result);
    } catch (err) {
      // deleted while it was probed (with its service or domain): nothing to record
      if (!(await store.checks.get(current.id))) return;
      throw err;
    }
    const deploying = ok ? false : await this.deploying(service.id);
    const next = nextCheckState(current, ok, deploying, current.failuresBeforeIncident);
    let openIncidentId = current.openIncidentId;
    const scope = { checkId: current.id, serviceId: service.id, projectId: service.projectId };
    if (next.action === 'open') {
      openIncidentId = newId();
      await store.checks.insertIncident({
        id: openIncidentId,
        checkId: current.id,
        serviceId: service.id,
        startedAt: at,
        resolvedAt: null,
        cause: reason ?? 'failed',
        failures: next.consecutiveFailures,
      });
    } else if (next.action === 'count' && openIncidentId !== null) {
      await store.checks.updateIncident(openIncidentId, { failures: next.consecutiveFailures });
    } else if (next.action === 'resolve' && openIncidentId !== null) {
      await store.checks.updateIncident(openIncidentId, { resolvedAt: at });
    }
    const written = await store.checks.updateRun(current.id, {
      status: next.status,
      lastCheckedAt: at,
      lastResponseMs: outcome.responseMs,
      lastError: reason,
      certificateDaysLeft: outcome.certificateDaysLeft,
      consecutiveFailures: next.consecutiveFailures,
      openIncidentId: next.action === 'resolve' ? null : openIncidentId,
    });
    if (!written) return;
    if (next.status !== current.status) events.publish({ type: 'check', projectId: service.projectId, data: { ...scope, status: next.status } });
    if (next.action === 'open' && openIncidentId !== null) events.publish({ type: 'incident', projectId: service.projectId, data: { ...scope, incidentId: openIncidentId, state: 'opened' } });
    if (next.action === 'resolve' && current.openIncidentId !== null)
      events.publish({ type: 'incident', projectId: service.projectId, data: { ...scope, incidentId: current.openIncidentId, state: 'resolved' } });
  }
}
