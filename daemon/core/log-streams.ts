// Deployment build logs and service runtime logs as live streams: the key's access is checked when
// a stream opens and again whenever the HTTP layer re-checks it (after writes, see
// http/sse-streams.ts). The HTTP layer only turns what these handles give into Server-Sent Events.
import { deploymentOver } from '../../shared/statuses.js';
import type { DeploymentStatus } from '../../shared/types.js';
import { Access } from './access.js';
import type { Deployments } from './deployments.js';
import type { EventFeed } from './events.js';
import type { KeyService } from './keys.js';
import { LOG_PAGE_LINES, withinBytes } from './log-pages.js';
import type { LogFeed, RuntimeLogState } from './ports/log-feeds.js';
import type { DeploymentRecord, LogLineRecord } from './records.js';
import type { Services } from './services.js';

/** The lines a runtime stream starts with when the client brings no Last-Event-ID. */
const RUNTIME_SNAPSHOT_LINES = 500;

/**
 * A stream's `snapshot`: the newest lines after `afterId`, at most `lines` and one page's bytes.
 * When more was missed than that, the oldest missed lines are left out (a client reads them with
 * `GET /api/deployments/:id/logs?before=<the snapshot's first id>`); live lines follow the snapshot
 * without a gap.
 */
async function boundedSnapshot(feed: LogFeed, owner: string, afterId: number, lines: number): Promise<LogLineRecord[]> {
  return withinBytes(
    (await feed.tail(owner, lines)).filter((l) => l.id > afterId),
    'last',
  );
}

export interface LogStreamDeps {
  keys: KeyService;
  deployments: Deployments;
  services: Services;
  buildLogs: LogFeed;
  runtimeLogs: LogFeed;
  runtime: RuntimeLogState;
  events: EventFeed;
}

type Unsubscribe = () => void;

export interface DeploymentLogStream {
  deployment: DeploymentRecord;
  /** False once the key is revoked or can no longer see the deployment. */
  stillAllowed(): Promise<boolean>;
  subscribe(fn: (line: LogLineRecord) => void): Unsubscribe;
  /** The newest lines after `afterId` within one page's bounds (core/log-pages.ts), oldest first. */
  snapshot(afterId: number): Promise<LogLineRecord[]>;
  /** Called with the status when the deployment reaches a terminal one. */
  onEnd(fn: (status: DeploymentStatus) => void): Unsubscribe;
  /** The terminal status the deployment has now, `deleted` when it is gone, else null. */
  ended(): Promise<DeploymentStatus | 'deleted' | null>;
}

export interface RuntimeLogStream {
  serviceId: string;
  stillAllowed(): Promise<boolean>;
  subscribe(fn: (line: LogLineRecord) => void): Unsubscribe;
  /** The newest lines (after `afterId` when the client resumes), within one page's bounds. */
  snapshot(afterId: number): Promise<LogLineRecord[]>;
  /** Whether the followed container's log is open (null: nothing followed). */
  isOpen(): boolean | null;
  onClosed(fn: () => void): Unsubscribe;
}

export class LogStreams {
  constructor(private readonly d: LogStreamDeps) {}

  /** The key as it is now (null once revoked). */
  async current(access: Access): Promise<Access | null> {
    const key = await this.d.keys.find(access.key.id);
    return key ? new Access(key) : null;
  }

  async deployment(access: Access, deploymentId: string): Promise<DeploymentLogStream> {
    const { deployment } = await this.d.deployments.visible(access, deploymentId);
    const id = deployment.id;
    return {
      deployment,
      stillAllowed: async () => {
        const now = await this.current(access);
        return (
          now !== null &&
          (await this.d.deployments.visible(now, id).then(
            () => true,
            () => false,
          ))
        );
      },
      subscribe: (fn) => this.d.buildLogs.subscribe(id, fn),
      snapshot: (afterId) => boundedSnapshot(this.d.buildLogs, id, afterId, LOG_PAGE_LINES),
      onEnd: (fn) =>
        this.d.events.subscribe((e) => {
          if (e.type === 'deployment' && e.data.deploymentId === id && deploymentOver(e.data.status)) fn(e.data.status);
        }),
      ended: async () => {
        const now = await this.d.deployments.visible(access, id).catch(() => null);
        if (!now) return 'deleted';
        return deploymentOver(now.deployment.status) ? now.deployment.status : null;
      },
    };
  }

  async runtime(access: Access, serviceId: string): Promise<RuntimeLogStream> {
    const id = (await this.d.services.visible(access, serviceId)).id;
    return {
      serviceId: id,
      stillAllowed: async () => {
        const now = await this.current(access);
        return (
          now !== null &&
          (await this.d.services.visible(now, id).then(
            () => true,
            () => false,
          ))
        );
      },
      subscribe: (fn) => this.d.runtimeLogs.subscribe(id, fn),
      snapshot: (afterId) => boundedSnapshot(this.d.runtimeLogs, id, afterId, afterId > 0 ? LOG_PAGE_LINES : RUNTIME_SNAPSHOT_LINES),
      isOpen: () => this.d.runtime.isOpen(id),
      onClosed: (fn) => this.d.runtime.onClosed(id, fn),
    };
  }
}
