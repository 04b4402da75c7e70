// The wire contract of GET /api/events (and of the deployment log stream's events), read by the
// daemon (which publishes), the console, the desktop main process and the CLI. Each SSE message is
// `event: <type>` then `data: <the payload below plus "at">`. Payloads stay small (ids, names,
// action, status): a client refetches what it shows. Never a secret or an env value.
import type {
  MetricAlertKind,
  MetricAlertState,
  AuditOutcome,
  DeploymentLogLine,
  DeploymentStatus,
  ExecMode,
  JobRunStatus,
  JobStatus,
  NodeAvailability,
  NodeState,
  ProxyResult,
  ServerBackupTrigger,
  ServiceStatus,
  CheckStatus,
  UpgradeState,
  VerificationStatus,
} from './types.js';

/** A backup's status as events carry it: `running` when it starts, then `succeeded` or `failed`. */
export type BackupEventStatus = 'running' | 'succeeded' | 'failed';

export type ChangeAction = 'created' | 'updated' | 'deleted';

/**
 * Which settings changed in a `settings` event (what a settings view refetches).
 * `address`: the server's address changed, and with it the API certificate's fingerprint. `upgrade`: an upgrade of Berth started or ended.
 * `server-backups`: Berth's own backup settings changed, or one of its runs started, ended or was deleted.
 */
export type SettingsArea = 'system' | 'address' | 'upgrade' | 'server-backups' | 'deploy-limits' | 'quota-defaults' | 'backup-storage' | 'dns-providers' | 'ai-providers';

/** The payload of each event type heard by keys of the event's project. */
export interface ProjectEventPayloads {
  /** A deployment's status changed. */
  deployment: { deploymentId: string; serviceId: string; projectId: string; status: DeploymentStatus };
  /** A service's running status or reachability changed. */
  service: { serviceId: string; projectId: string; status: ServiceStatus; reachable: boolean };
  domain: { serviceId: string; projectId: string; domainId: string; hostname: string; action: ChangeAction; proxy: ProxyResult };
  /** A database's backup, or a volume's (`volume` names it). */
  backup: { backupId: string; serviceId: string; projectId: string; status: BackupEventStatus; volume?: string };
  /** A restore test of a database's backup: `running` when it starts, then `verified` or `failed` (once each). */
  'backup-verification': { backupId: string; serviceId: string; projectId: string; status: VerificationStatus };
  /** A project was created, renamed/described, or deleted (heard by the keys that could see it). */
  project: { projectId: string; name: string; slug: string; action: ChangeAction };
  /**
   * A service was created, patched (any field, the name too), moved to another project or deleted.
   * A move is two `transferred` events, one per project (`direction` `out` of the one it left, `in`
   * to the one it joined): each project's keys hear theirs, and neither names the other project.
   */
  'service-change': { serviceId: string; projectId: string; name: string; action: ChangeAction | 'transferred'; direction?: 'in' | 'out' };
  /** An env variable was added, changed or deleted: its id and name, never its value. */
  env: { serviceId: string; projectId: string; envId: string; key: string; action: ChangeAction };
  /** A DNS record was written for a custom domain through a DNS provider. */
  'domain-dns': { serviceId: string; projectId: string; domainId: string; hostname: string; action: 'pointed' };
  /** A project's quotas changed. */
  quotas: { projectId: string };
  /** A project's public status page was set up, changed (settings) or removed. */
  'status-page': { projectId: string; action: ChangeAction };
  /** A database service's backup settings (storage, schedule, retention) changed. */
  'backup-settings': { serviceId: string; projectId: string };
  /** A data import's status: `running` when it starts, then `succeeded` or `failed`. */
  import: { importId: string; serviceId: string; projectId: string; status: BackupEventStatus };
  /** A scheduled job's run: `running` when it starts, then how it ended. */
  job: { jobId: string; runId: string; serviceId: string; projectId: string; status: JobRunStatus };
  /** A scheduled job was created, changed (enabled, schedule, ...) or deleted. */
  'job-change': { jobId: string; serviceId: string; projectId: string; name: string; action: ChangeAction };
  /** A one-off command or a terminal session started (`running`) or ended (`ended`, with its exit code when it has one). */
  /** A service's instances changed on Swarm: a task started, failed, moved or stopped (refetch GET .../instances). */
  instances: { serviceId: string; projectId: string };
  /** An uptime check's status changed, or it was created, changed or deleted (`action`). */
  check: { checkId: string; serviceId: string; projectId: string; status: CheckStatus; action?: ChangeAction };
  /** An uptime check's incident was opened (after N consecutive failures) or resolved (by a success); once each. */
  incident: { incidentId: string; checkId: string; serviceId: string; projectId: string; state: 'opened' | 'resolved' };
  exec: { execId: string; serviceId: string; projectId: string; mode: ExecMode | 'terminal'; status: 'running' | 'ended'; exitCode: number | null };
}

/** The payload of each event type heard only by keys over all projects. */
export interface AllProjectsEventPayloads {
  key: { keyId: string; name: string; action: 'created' | 'revoked' };
  settings: { area: SettingsArea };
  'notification-channel': { channelId: string; name: string; action: ChangeAction };
  'generated-name': { label: string; action: 'released' };
  /** Swarm mode was turned on or off. */
  swarm: { enabled: boolean };
  /** A node joined, left, was removed, or its state, availability or labels changed. */
  node: { nodeId: string; hostname: string; state: NodeState; availability: NodeAvailability; action: ChangeAction };
  /**
   * An upgrade of Berth started (`running`) or ended, as the daemon found it (a finished run is
   * announced once, often by the daemon that started after the switch). With `settings` area `upgrade`.
   */
  upgrade: { runId: string; state: UpgradeState; fromVersion: string | null; toVersion: string | null };
  /** A backup of Berth itself started (`running`) or ended (`succeeded`, `failed`). With `settings` area `server-backups`. */
  'server-backup': { runId: string; status: JobStatus; trigger: ServerBackupTrigger };
  /**
   * Entries were added to the audit log: one event per batch written together (at most one every
   * 50 ms), naming the newest entry's id, route id and outcome and how many came; an open audit view
   * refetches. The entries themselves are read from GET /api/audit.
   */
  audit: { entryId: string; route: string; outcome: AuditOutcome; count: number };
  /**
   * A metric threshold alert fired (the condition held for the settings' forMinutes) or resolved,
   * once each: a service's CPU or memory (`serviceId`, `projectId` set) or the host's (both null).
   */
  'metric-alert': {
    alertKind: MetricAlertKind;
    state: MetricAlertState;
    serviceId: string | null;
    projectId: string | null;
    /** The value that fired or cleared it (percent; for disk-full, the hours left, or null when cleared). */
    value: number | null;
    threshold: number;
  };
}

export type ProjectEventType = keyof ProjectEventPayloads;
export type AllProjectsEventType = keyof AllProjectsEventPayloads;
export type DaemonEventType = ProjectEventType | AllProjectsEventType;
export type EventPayloads = ProjectEventPayloads & AllProjectsEventPayloads;

/** Who hears each event type: a Record, so a type added above and not here fails to compile. */
const HEARD_BY: Record<DaemonEventType, 'project' | 'all-projects'> = {
  deployment: 'project',
  service: 'project',
  domain: 'project',
  backup: 'project',
  'backup-verification': 'project',
  'status-page': 'project',
  project: 'project',
  'service-change': 'project',
  env: 'project',
  'domain-dns': 'project',
  quotas: 'project',
  'backup-settings': 'project',
  import: 'project',
  job: 'project',
  'job-change': 'project',
  exec: 'project',
  instances: 'project',
  check: 'project',
  incident: 'project',
  key: 'all-projects',
  settings: 'all-projects',
  'notification-channel': 'all-projects',
  'generated-name': 'all-projects',
  swarm: 'all-projects',
  node: 'all-projects',
  upgrade: 'all-projects',
  'server-backup': 'all-projects',
  audit: 'all-projects',
  'metric-alert': 'all-projects',
};

export const DAEMON_EVENT_TYPES = Object.keys(HEARD_BY) as DaemonEventType[];
export const ALL_PROJECTS_EVENT_TYPES = DAEMON_EVENT_TYPES.filter((t) => HEARD_BY[t] === 'all-projects') as AllProjectsEventType[];

/**
 * Every event name the daemon's streams send: /api/events (the types above and `reset`), the log
 * streams (`snapshot`, `log`, `end`, `status`) and `message`. EventSource needs a listener per name.
 */
export const STREAM_EVENT_NAMES: readonly string[] = ['snapshot', 'log', 'end', 'status', 'reset', 'message', ...DAEMON_EVENT_TYPES];

/**
 * An event as the daemon publishes it, with its scope: `projectId` names the project whose keys
 * hear it; `allProjects: true` marks an event that only keys over all projects hear. The stream
 * sends `data` (plus `at`), not the scope.
 */
export type DaemonEvent =
  | { [K in ProjectEventType]: { type: K; projectId: string; data: ProjectEventPayloads[K] } }[ProjectEventType]
  | { [K in AllProjectsEventType]: { type: K; allProjects: true; data: AllProjectsEventPayloads[K] } }[AllProjectsEventType];

/** Whether a key that sees `canSee` projects (all of them when `allProjects`) may hear the event. */
export function keyHears(e: DaemonEvent, key: { allProjects: boolean; canSee(projectId: string): boolean }): boolean {
  if ('allProjects' in e) return key.allProjects;
  return key.canSee(e.projectId);
}

/** What a client receives: the payload and when it happened. `reset` means: reload what you show. */
export type StreamEventData<K extends DaemonEventType> = EventPayloads[K] & { at: string };

export interface ResetEventData {
  reason: string;
}

/** One received /api/events message, typed by its `event` name. */
export type ReceivedEvent = { [K in DaemonEventType]: { event: K; data: StreamEventData<K> } }[DaemonEventType] | { event: 'reset'; data: ResetEventData };

/** The deployment log stream (GET /api/deployments/:id/stream): its `end` event, after the last line. */
export interface DeploymentStreamPayloads {
  snapshot: DeploymentLogLine[];
  log: DeploymentLogLine;
  ping: { t: number };
  end: { status: DeploymentStatus };
}
