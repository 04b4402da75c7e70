// Deployments and their logs. What each status means (final, live, in progress) is in ../statuses.ts.

import type { Timestamp } from './common.js';

export type DeploymentStatus = 'queued' | 'building' | 'running' | 'superseded' | 'failed' | 'aborted';

/** `manual` (the API or a client), `webhook` (a signed push), `rollback` (an earlier image again, no build). */
export type DeploymentTrigger = 'manual' | 'webhook' | 'rollback';

export interface Deployment {
  id: string;
  serviceId: string;
  commitSha: string | null;
  status: DeploymentStatus;
  trigger: DeploymentTrigger;
  imageTag: string | null;
  containerName: string | null;
  startedAt: Timestamp | null;
  finishedAt: Timestamp | null;
  createdAt: Timestamp;
}

export interface DeploymentLogLine {
  id: number;
  deploymentId: string;
  line: string;
  stream: string;
  createdAt: Timestamp;
}

export type RuntimeLogLine = Omit<DeploymentLogLine, 'deploymentId'>;

/**
 * `GET /api/deployments/:id/logs`: one page, at most 1,000 lines and about 1 MiB (from the start
 * by default; `?after=<id>`, `?before=<id>`, `?tail=true`, `?limit=<n>`).
 */
export interface DeploymentLogPage {
  logs: DeploymentLogLine[];
  /** Pass as `after` for the lines that follow this page; null when no later line is stored now. */
  nextCursor: string | null;
  /** Pass as `before` for the lines that precede this page; null when this page starts the log. */
  prevCursor: string | null;
  /** nextCursor !== null: later lines are stored. */
  hasMore: boolean;
}
