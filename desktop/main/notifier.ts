// Desktop notifications from the servers' event streams: a failed deployment (once per server and
// deployment, whatever reconnects and replays deliver), a failed backup or restore test of one, a failed or timed-out
// job run (once per run), an uptime check's incident (once opened, once resolved), a metric alert
// (once firing, once resolved; keys over all projects hear them), a failed backup of Berth itself (once per run), a Swarm node going down (once per transition: again only after it came
// back), an upgrade of Berth that rolled back or failed (once per run, whether the event or a read
// after the daemon restarted told it), a server that stays offline (debounced), all rate-limited and muted per server. Clicking one opens the deployment's
// log (or the server) in the window. Electron's Notification is injected.
import type { EventPayloads } from '../../shared/events.js';
import { jobRunFailed, UPGRADE_STATES, upgradeFailed } from '../../shared/statuses.js';
import type { UpgradeState } from '../../shared/types.js';
import type { JobRunStatus } from '../../shared/types/jobs.js';
import type { MetricAlertKind } from '../../shared/types/metrics-history.js';
import type { ConnectionState, StreamEventMessage } from './event-stream.js';

export interface NotificationLike {
  on(event: 'click', listener: () => void): unknown;
  show(): void;
}

export interface NotificationContent {
  title: string;
  body: string;
}

export type OpenTarget =
  | { serverId: string; kind: 'deployment'; deploymentId: string; serviceId: string }
  | { serverId: string; kind: 'backup'; serviceId: string }
  | { serverId: string; kind: 'job'; serviceId: string; jobId: string }
  | { serverId: string; kind: 'uptime'; serviceId: string }
  /** A service's Metrics tab, or (serviceId null) the server page's host charts. */
  | { serverId: string; kind: 'metrics'; serviceId: string | null }
  | { serverId: string; kind: 'nodes' }
  | { serverId: string; kind: 'settings' }
  | { serverId: string; kind: 'server' };

export interface NotifierOptions {
  create(content: NotificationContent): NotificationLike;
  open(target: OpenTarget): void;
  serverName(serverId: string): string;
  isMuted(serverId: string): boolean;
  offlineDebounceMs?: number;
  /** At most `max` notifications per `windowMs`; the rest are summed up in one when the window frees. */
  rateLimit?: { max: number; windowMs: number };
  now?: () => number;
}

const SEEN_LIMIT = 5000;

export class Notifier {
  readonly shown: (NotificationContent & { target: OpenTarget })[] = [];
  private seen = new Set<string>();
  private sentAt: number[] = [];
  private held = 0;
  private heldTimer: NodeJS.Timeout | null = null;
  private offlineTimers = new Map<string, NodeJS.Timeout>();
  private offlineNotified = new Set<string>();
  /** `server:node` of the nodes last heard `down`: a replayed `down` is not a new transition. */
  private nodesDown = new Set<string>();

  constructor(private readonly o: NotifierOptions) {}

  onEvent(serverId: string, e: StreamEventMessage): void {
    // a server's data is checked, not trusted: each field may be missing or of another type
    if (e.event === 'deployment') {
      const d = (e.data ?? {}) as Partial<Record<keyof EventPayloads['deployment'], unknown>>;
      if (d.status !== 'failed' || typeof d.deploymentId !== 'string') return;
      if (!this.once(`${serverId}:deployment:${d.deploymentId}`)) return;
      this.notify(
        serverId,
        { title: `Deployment failed on ${this.o.serverName(serverId)}`, body: 'Click to read its build log and why it failed.' },
        { serverId, kind: 'deployment', deploymentId: d.deploymentId, serviceId: String(d.serviceId ?? '') },
      );
    } else if (e.event === 'backup') {
      const d = (e.data ?? {}) as Partial<Record<keyof EventPayloads['backup'], unknown>>;
      if (d.status !== 'failed' || typeof d.backupId !== 'string') return;
      if (!this.once(`${serverId}:backup:${d.backupId}`)) return;
      this.notify(
        serverId,
        { title: `Backup failed on ${this.o.serverName(serverId)}`, body: "Click to see the database's backups." },
        { serverId, kind: 'backup', serviceId: String(d.serviceId ?? '') },
      );
    } else if (e.event === 'backup-verification') {
      // a failed restore test: once per server and test (a replay repeats the event's `at`; a test run
      // again and failed again is a new event)
      const d = (e.data ?? {}) as Partial<Record<keyof EventPayloads['backup-verification'] | 'at', unknown>>;
      if (d.status !== 'failed' || typeof d.backupId !== 'string' || !this.once(`${serverId}:backup-verification:${d.backupId}:${String(d.at)}`)) return;
      this.notify(
        serverId,
        { title: `Restore test failed on ${this.o.serverName(serverId)}`, body: "A backup did not restore. Click to see the database's backups and why." },
        { serverId, kind: 'backup', serviceId: String(d.serviceId ?? '') },
      );
    } else if (e.event === 'job') {
      const d = (e.data ?? {}) as Partial<Record<keyof EventPayloads['job'], unknown>>;
      const known: readonly unknown[] = ['running', 'succeeded', 'failed', 'timed_out'] satisfies JobRunStatus[];
      if (!known.includes(d.status) || !jobRunFailed(d.status as JobRunStatus) || typeof d.runId !== 'string') return;
      if (!this.once(`${serverId}:job-run:${d.runId}`)) return;
      const how = d.status === 'timed_out' ? 'timed out' : 'failed';
      this.notify(
        serverId,
        { title: `A scheduled job ${how} on ${this.o.serverName(serverId)}`, body: "Click to see the job's runs and its log." },
        { serverId, kind: 'job', serviceId: String(d.serviceId ?? ''), jobId: String(d.jobId ?? '') },
      );
    } else if (e.event === 'incident') {
      // an uptime check's incident: once when it opens and once when it resolves (per server, incident and state)
      const d = (e.data ?? {}) as Partial<Record<keyof EventPayloads['incident'], unknown>>;
      if ((d.state !== 'opened' && d.state !== 'resolved') || typeof d.incidentId !== 'string') return;
      if (!this.once(`${serverId}:incident:${d.incidentId}:${d.state}`)) return;
      const content =
        d.state === 'opened'
          ? { title: `A service is down on ${this.o.serverName(serverId)}`, body: 'An uptime check failed several times in a row. Click to see its checks and incidents.' }
          : { title: `A service is back up on ${this.o.serverName(serverId)}`, body: 'Its uptime check passes again; the incident is resolved.' };
      this.notify(serverId, content, { serverId, kind: 'uptime', serviceId: String(d.serviceId ?? '') });
    } else if (e.event === 'metric-alert') {
      this.metricAlert(serverId, (e.data ?? {}) as Partial<Record<keyof EventPayloads['metric-alert'] | 'at', unknown>>);
    } else if (e.event === 'node') {
      const d = (e.data ?? {}) as Partial<Record<keyof EventPayloads['node'], unknown>>;
      if (typeof d.nodeId !== 'string' || typeof d.state !== 'string') return;
      const key = `${serverId}:${d.nodeId}`;
      if (d.state !== 'down') {
        this.nodesDown.delete(key);
        return;
      }
      if (this.nodesDown.has(key)) return;
      this.nodesDown.add(key);
      if (this.nodesDown.size > SEEN_LIMIT) this.nodesDown.delete(this.nodesDown.values().next().value as string);
      const name = typeof d.hostname === 'string' && d.hostname ? d.hostname : d.nodeId;
      this.notify(serverId, { title: `Node ${name} is down on ${this.o.serverName(serverId)}`, body: 'Its tasks move to the other nodes. Click to see the nodes.' }, { serverId, kind: 'nodes' });
    } else if (e.event === 'server-backup') {
      const d = (e.data ?? {}) as Partial<Record<keyof EventPayloads['server-backup'], unknown>>;
      if (d.status !== 'failed' || typeof d.runId !== 'string') return;
      if (!this.once(`${serverId}:server-backup:${d.runId}`)) return;
      const how = d.trigger === 'schedule' ? 'The scheduled backup' : 'The backup';
      this.notify(
        serverId,
        { title: `Backup of Berth failed on ${this.o.serverName(serverId)}`, body: `${how} of Berth itself did not complete. Click to see why in the settings.` },
        { serverId, kind: 'settings' },
      );
    } else if (e.event === 'upgrade') {
      const d = (e.data ?? {}) as Partial<Record<keyof EventPayloads['upgrade'], unknown>>;
      if (typeof d.runId !== 'string' || !(UPGRADE_STATES as unknown[]).includes(d.state)) return;
      this.upgradeEnded(serverId, d.runId, d.state as UpgradeState, typeof d.fromVersion === 'string' ? d.fromVersion : null, null);
    }
  }

  /** A metric alert fired or resolved: once per alert, transition and time (a replay repeats the event's `at`). */
  private metricAlert(serverId: string, d: Partial<Record<keyof EventPayloads['metric-alert'] | 'at', unknown>>): void {
    const kinds: readonly unknown[] = ['cpu', 'memory', 'disk-full'] satisfies MetricAlertKind[];
    if ((d.state !== 'firing' && d.state !== 'resolved') || !kinds.includes(d.alertKind)) return;
    const serviceId = typeof d.serviceId === 'string' && d.serviceId ? d.serviceId : null;
    if (!this.once(`${serverId}:metric-alert:${String(d.alertKind)}:${serviceId ?? 'host'}:${d.state}:${String(d.at)}`)) return;
    const server = this.o.serverName(serverId);
    const what = serviceId ? 'A service' : 'The server';
    const value = typeof d.value === 'number' && Number.isFinite(d.value) ? Math.round(d.value) : null;
    const threshold = typeof d.threshold === 'number' && Number.isFinite(d.threshold) ? Math.round(d.threshold) : null;
    const over = value !== null && threshold !== null ? ` (${value}%, threshold ${threshold}%)` : '';
    const firing: Record<MetricAlertKind, NotificationContent> = {
      cpu: { title: `High CPU on ${server}`, body: `${what} stayed above its CPU threshold${over}. Click to see its metrics.` },
      memory: { title: `High memory use on ${server}`, body: `${what} stayed above its memory threshold${over}. Click to see its metrics.` },
      'disk-full': {
        title: `Disk filling up on ${server}`,
        body: `At the current rate the disk is full in ${value !== null ? `about ${value} h` : 'a few hours'}. Click to see the server.`,
      },
    };
    const resolved: Record<MetricAlertKind, NotificationContent> = {
      cpu: { title: `CPU back to normal on ${server}`, body: `${what} is under its CPU threshold again.` },
      memory: { title: `Memory use back to normal on ${server}`, body: `${what} is under its memory threshold again.` },
      'disk-full': { title: `Disk no longer filling up on ${server}`, body: 'The disk is no longer on course to fill within the alert window.' },
    };
    const kind = d.alertKind as MetricAlertKind;
    this.notify(serverId, (d.state === 'firing' ? firing : resolved)[kind], { serverId, kind: 'metrics', serviceId });
  }

  /**
   * A finished upgrade read from the API (GET /api/system/upgrade after the stream was reset): the
   * daemon that announced it may have done so before this app reconnected.
   */
  onUpgradeRun(serverId: string, run: { id: string; state: UpgradeState; fromVersion: string | null; message: string | null }): void {
    this.upgradeEnded(serverId, run.id, run.state, run.fromVersion, run.message);
  }

  private upgradeEnded(serverId: string, runId: string, state: UpgradeState, fromVersion: string | null, message: string | null): void {
    if (!upgradeFailed(state) || !this.once(`${serverId}:upgrade:${runId}`)) return;
    const name = this.o.serverName(serverId);
    const why = message ? `: ${message.slice(0, 200)}` : '';
    const content =
      state === 'rolled_back'
        ? { title: `Berth's upgrade rolled back on ${name}`, body: `${fromVersion ? `Berth ${fromVersion}` : 'The previous release'} runs again${why}. Click to see the upgrade's log.` }
        : { title: `Berth's upgrade failed on ${name}`, body: `Nothing was changed${why}. Click to see the upgrade's log.` };
    this.notify(serverId, content, { serverId, kind: 'settings' });
  }

  onState(serverId: string, s: ConnectionState): void {
    if (s.status === 'offline') {
      if (this.offlineTimers.has(serverId) || this.offlineNotified.has(serverId)) return;
      this.offlineTimers.set(
        serverId,
        setTimeout(() => {
          this.offlineTimers.delete(serverId);
          this.offlineNotified.add(serverId);
          const since = s.since ? new Date(s.since).toLocaleTimeString() : 'now';
          this.notify(serverId, { title: `${this.o.serverName(serverId)} is offline`, body: `Unreachable since ${since}${s.error ? `: ${s.error}` : ''}.` }, { serverId, kind: 'server' });
        }, this.o.offlineDebounceMs ?? 30_000),
      );
    } else if (s.status === 'online') {
      const t = this.offlineTimers.get(serverId);
      if (t) clearTimeout(t);
      this.offlineTimers.delete(serverId);
      if (this.offlineNotified.delete(serverId)) {
        this.notify(serverId, { title: `${this.o.serverName(serverId)} is back online`, body: 'The event stream reconnected.' }, { serverId, kind: 'server' });
      }
    }
  }

  dispose(): void {
    for (const t of this.offlineTimers.values()) clearTimeout(t);
    this.offlineTimers.clear();
    if (this.heldTimer) clearTimeout(this.heldTimer);
  }

  private once(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }

  private notify(serverId: string, content: NotificationContent, target: OpenTarget): void {
    if (this.o.isMuted(serverId)) return;
    const now = (this.o.now ?? Date.now)();
    const { max, windowMs } = this.o.rateLimit ?? { max: 5, windowMs: 60_000 };
    this.sentAt = this.sentAt.filter((t) => now - t < windowMs);
    if (this.sentAt.length >= max) {
      this.held++;
      this.heldTimer ??= setTimeout(
        () => {
          this.heldTimer = null;
          const n = this.held;
          this.held = 0;
          if (n > 0) this.show({ title: `${n} more Berth notification${n === 1 ? '' : 's'}`, body: 'Open Berth to see what changed.' }, { serverId, kind: 'server' });
        },
        windowMs - (now - this.sentAt[0]!),
      );
      return;
    }
    this.sentAt.push(now);
    this.show(content, target);
  }

  private show(content: NotificationContent, target: OpenTarget): void {
    const n = this.o.create(content);
    n.on('click', () => this.o.open(target));
    n.show();
    this.shown.push({ ...content, target });
  }
}
