// The client's calls for a service's uptime checks, their results, uptime buckets and incidents.
import type { Check, CheckIncident, CheckPatch, CheckResult, NewCheckInput, UptimeBucket } from '../types/checks.js';
import { SwarmClient } from './swarm.js';

export class ChecksClient extends SwarmClient {
  listChecks(serviceId: string): Promise<{ checks: Check[] }> {
    return this.api('checks.list', { serviceId });
  }
  /** Answers 201 with the check (`pending` until its first result). */
  createCheck(serviceId: string, input: NewCheckInput): Promise<{ check: Check }> {
    return this.api('checks.create', { serviceId }, input);
  }
  getCheck(serviceId: string, checkId: string): Promise<{ check: Check }> {
    return this.api('checks.get', { serviceId, checkId });
  }
  patchCheck(serviceId: string, checkId: string, patch: CheckPatch): Promise<{ check: Check }> {
    return this.api('checks.patch', { serviceId, checkId }, patch);
  }
  deleteCheck(serviceId: string, checkId: string): Promise<{ ok: true }> {
    return this.api('checks.delete', { serviceId, checkId });
  }
  /** Probes now (202); the result arrives as a `check` event or on the next GET. */
  runCheck(serviceId: string, checkId: string): Promise<{ check: Check }> {
    return this.api('checks.run', { serviceId, checkId });
  }
  checkResults(serviceId: string, checkId: string, range: { from?: string; to?: string } = {}): Promise<{ results: CheckResult[] }> {
    return this.api('checks.results', { serviceId, checkId }, undefined, range);
  }
  checkUptime(serviceId: string, checkId: string, range: '24h' | '90d' = '24h'): Promise<{ buckets: UptimeBucket[] }> {
    return this.api('checks.uptime', { serviceId, checkId }, undefined, { range });
  }
  checkIncidents(serviceId: string, checkId: string): Promise<{ incidents: CheckIncident[] }> {
    return this.api('checks.incidents', { serviceId, checkId });
  }
}
