// Turns what happens on the daemon into notices for the channels that asked for them: a failed
// deployment, a deployment gone live (optional), a failed backup or restore test of one, a failed or timed-out job run, an uptime check's incident opened and resolved, a metric alert firing or resolving, and a restart after a crash (the
// data dir keeps a marker while the daemon runs; a clean stop removes it). Sending happens in the
// background and never affects the event that caused it.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { PublishedEvent } from '../core/events.js';
import type { Store } from '../core/ports/store.js';
import type { EventHub } from '../events/hub.js';
import type { NotificationChannels, NotifyEvent } from '../core/notification-channels.js';
import type { Notice, Sender } from '../core/ports/notice-sender.js';
import { jobRunFailed } from '../../shared/statuses.js';
import type { MetricAlertKind, MetricAlertState } from '../../shared/types.js';

const RUNNING_MARKER = 'daemon.running';

export class Notifier {
  private pending = new Set<Promise<unknown>>();
  private unsubscribe: () => void = () => undefined;

  constructor(private d: { store: Store; clock: Clock; channels: NotificationChannels; sender: Sender; log: (message: string, err?: unknown) => void }) {}

  start(hub: EventHub): void {
    this.unsubscribe = hub.subscribe((e) => this.track(this.onEvent(e)));
  }

  /** Marks the daemon running; answers whether the previous run ended without a clean stop. */
  static markRunning(dataDir: string): boolean {
    const path = join(dataDir, RUNNING_MARKER);
    const crashed = existsSync(path);
    writeFileSync(path, `${process.pid}\n`, { mode: 0o600 });
    return crashed;
  }

  static markStopped(dataDir: string): void {
    rmSync(join(dataDir, RUNNING_MARKER), { force: true });
  }

  restartedAfterCrash(): void {
    this.track(this.notify('daemon_restarted', { event: 'daemon_restarted', at: this.d.clock.now(), text: 'Berth: the daemon restarted after it stopped unexpectedly', data: {} }));
  }

  async stop(): Promise<void> {
    this.unsubscribe();
    await Promise.allSettled([...this.pending]);
  }

  private async onEvent(e: PublishedEvent): Promise<void> {
    if (e.type === 'deployment' && (e.data.status === 'failed' || e.data.status === 'running')) {
      const event: NotifyEvent = e.data.status === 'failed' ? 'deployment_failed' : 'deployment_succeeded';
      const names = await this.names(e.data.serviceId, e.data.projectId);
      const text = e.data.status === 'failed' ? `Berth: deployment of ${names.label} failed` : `Berth: ${names.label} deployed and live`;
      await this.notify(event, { event, at: e.at, text: `${text} (deployment ${e.data.deploymentId})`, data: { ...names.data, deploymentId: e.data.deploymentId, status: e.data.status } });
    } else if (e.type === 'backup' && e.data.status === 'failed') {
      const names = await this.names(e.data.serviceId, e.data.projectId);
      await this.notify('backup_failed', {
        event: 'backup_failed',
        at: e.at,
        text: `Berth: backup of ${names.label}${e.data.volume ? ` (volume ${e.data.volume})` : ''} failed (backup ${e.data.backupId})`,
        data: { ...names.data, backupId: e.data.backupId, status: e.data.status, ...(e.data.volume ? { volume: e.data.volume } : {}) },
      });
    } else if (e.type === 'backup-verification' && e.data.status === 'failed') {
      // one `failed` event per restore test, so one notice per failed test
      const names = await this.names(e.data.serviceId, e.data.projectId);
      const backup = await this.d.store.backups.get(e.data.backupId).catch(() => null);
      const why = backup?.verification?.error ?? 'unknown error';
      await this.notify('backup_verification_failed', {
        event: 'backup_verification_failed',
        at: e.at,
        text: `Berth: restore test of ${names.label}'s backup ${e.data.backupId} failed: ${why}`,
        data: { ...names.data, backupId: e.data.backupId, status: e.data.status, error: why },
      });
    } else if (e.type === 'job' && jobRunFailed(e.data.status)) {
      // one event per run's end, so one notice per failed or timed-out run
      const names = await this.names(e.data.serviceId, e.data.projectId);
      const job = await this.d.store.jobs.get(e.data.jobId).catch(() => null);
      const how = e.data.status === 'timed_out' ? 'timed out' : 'failed';
      await this.notify('job_failed', {
        event: 'job_failed',
        at: e.at,
        text: `Berth: job ${job?.name ?? e.data.jobId} of ${names.label} ${how} (run ${e.data.runId})`,
        data: { ...names.data, jobId: e.data.jobId, jobName: job?.name ?? null, runId: e.data.runId, status: e.data.status },
      });
    } else if (e.type === 'incident') {
      // one `opened` and one `resolved` event per incident, so one notice each way
      await this.incidentNotice(e.data, e.at);
    } else if (e.type === 'metric-alert') {
      // one event when an alert fires and one when it resolves, so one notice each way
      const d = e.data;
      const names = d.serviceId !== null && d.projectId !== null ? await this.names(d.serviceId, d.projectId) : { label: 'the server', data: {} };
      await this.notify('metric_alert', {
        event: 'metric_alert',
        at: e.at,
        text: `Berth: ${metricAlertText(d.alertKind, d.state, names.label, d.value, d.threshold)}`,
        data: { ...names.data, alertKind: d.alertKind, state: d.state, value: d.value === null ? null : String(d.value), threshold: String(d.threshold) },
      });
    }
  }

  private async incidentNotice(data: { incidentId: string; checkId: string; serviceId: string; projectId: string; state: 'opened' | 'resolved' }, at: string): Promise<void> {
    const names = await this.names(data.serviceId, data.projectId);
    const check = await this.d.store.checks.get(data.checkId).catch(() => null);
    const incident = await this.d.store.checks.getIncident(data.incidentId).catch(() => null);
    const checkName = check?.name ?? data.checkId;
    const cause = incident?.cause ?? 'unknown';
    const base = { ...names.data, checkId: data.checkId, checkName, incidentId: data.incidentId, cause };
    if (data.state === 'opened') {
      await this.notify('check_down', { event: 'check_down', at, text: `Berth: ${names.label} is down (check ${checkName}): ${cause}`, data: base });
      return;
    }
    const seconds = incident?.resolvedAt ? Math.max(0, Math.round((Date.parse(incident.resolvedAt) - Date.parse(incident.startedAt)) / 1000)) : null;
    const took = seconds === null ? '' : ` after ${duration(seconds)}`;
    await this.notify('check_up', {
      event: 'check_up',
      at,
      text: `Berth: ${names.label} is up again (check ${checkName})${took}; it was down: ${cause}`,
      data: { ...base, downSeconds: seconds === null ? null : String(seconds) },
    });
  }

  private async names(serviceId: string, projectId: string): Promise<{ label: string; data: Record<string, string | null> }> {
    const service = await this.d.store.services.get(serviceId).catch(() => null);
    const project = await this.d.store.projects.get(projectId).catch(() => null);
    return {
      label: `${project?.name ?? projectId}/${service?.name ?? serviceId}`,
      data: { projectId, projectName: project?.name ?? null, serviceId, serviceName: service?.name ?? null },
    };
  }

  private async notify(event: NotifyEvent, notice: Notice): Promise<void> {
    const channels = (await this.d.channels.all()).filter((c) => c.events.includes(event));
    await Promise.all(channels.map((c) => this.d.sender.send(c, notice)));
  }

  private track(p: Promise<unknown>): void {
    const guarded = p.catch((err: unknown) => this.d.log('sending notifications', err));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
  }
}

/** `3 min 5 s`, `2 h 4 min`, `12 s`. */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

function metricAlertText(kind: MetricAlertKind, state: MetricAlertState, label: string, value: number | null, threshold: number): string {
  if (kind === 'disk-full') {
    return state === 'firing'
      ? `the data disk of ${label} fills within ${value ?? '?'} h at its current rate (warning below ${threshold} h)`
      : `the data disk of ${label} is no longer filling up within ${threshold} h`;
  }
  const what = kind === 'cpu' ? 'CPU' : 'memory';
  return state === 'firing' ? `${what} of ${label} is at ${value ?? '?'}%, above ${threshold}%` : `${what} of ${label} is back under ${threshold}% (${value ?? '?'}%)`;
}
