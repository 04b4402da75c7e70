// What changes on the daemon, as the daemon-wide event stream and the desktop tray see it. Every
// event names its project, so a key sees only the events of projects it can see.
import type { DeploymentStatus, ProxyResult, ServiceStatus } from '../../shared/types.js';

export type DaemonEvent =
  | { type: 'deployment'; projectId: string; data: { deploymentId: string; serviceId: string; projectId: string; status: DeploymentStatus } }
  | { type: 'service'; projectId: string; data: { serviceId: string; projectId: string; status: ServiceStatus; reachable: boolean } }
  | {
      type: 'domain';
      projectId: string;
      data: { serviceId: string; projectId: string; domainId: string; hostname: string; action: 'created' | 'updated' | 'deleted'; proxy: ProxyResult };
    }
  | { type: 'backup'; projectId: string; data: { backupId: string; serviceId: string; projectId: string; status: BackupEventStatus } };

/** A backup's status as events carry it: `running` when it starts, then `succeeded` or `failed`. */
export type BackupEventStatus = 'running' | 'succeeded' | 'failed';

export type PublishedEvent = DaemonEvent & { id: number; at: string };

export interface EventSink {
  publish(event: DaemonEvent): void;
}

/** The daemon's numbered event history and live feed (daemon/events/hub.ts implements it). */
export interface EventFeed {
  /** The id of the newest event published. */
  readonly lastId: number;
  subscribe(fn: (e: PublishedEvent) => void): () => void;
  /** Events after `id`, or null when some of them have already left the history. */
  since(id: number): PublishedEvent[] | null;
}
