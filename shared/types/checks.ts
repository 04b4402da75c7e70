// Uptime checks of a service (issue 30): an HTTP(S) request on an interval to the service's own
// domain through Berth's Caddy, or to its host port on 127.0.0.1; results kept 48 h, daily rollups
// 90 days, incidents opened after N consecutive failures and resolved by the first success.

import type { Timestamp } from './common.js';

/** What a check requests: one of the service's domains (through Berth's Caddy), or its host port on 127.0.0.1. */
export type CheckTarget = { kind: 'domain'; domainId: string } | { kind: 'port' };

/** `pending` before the first result; `paused` while disabled. */
export type CheckStatus = 'pending' | 'up' | 'down' | 'paused';

export interface Check {
  id: string;
  serviceId: string;
  projectId: string;
  name: string;
  target: CheckTarget;
  /** The request path, starting with `/`. */
  path: string;
  /** The status that counts as up; null: any 2xx or 3xx. */
  expectedStatus: number | null;
  /** Text that must occur in the body (its first 64 KB); null: not checked. */
  keyword: string | null;
  intervalSeconds: number;
  timeoutSeconds: number;
  failuresBeforeIncident: number;
  enabled: boolean;
  status: CheckStatus;
  lastCheckedAt: Timestamp | null;
  lastResponseMs: number | null;
  lastError: string | null;
  /** Days until the certificate expires (https only; null for http). */
  certificateDaysLeft: number | null;
  /** Ratio of successful results over the last 24 hours / 90 days; null before any. */
  uptime24h: number | null;
  uptime90d: number | null;
  openIncidentId: string | null;
  createdAt: Timestamp;
}

export interface NewCheckInput {
  name?: string;
  target?: CheckTarget;
  path?: string;
  expectedStatus?: number | null;
  keyword?: string | null;
  intervalSeconds?: number;
  timeoutSeconds?: number;
  failuresBeforeIncident?: number;
  enabled?: boolean;
}
export type CheckPatch = NewCheckInput;

export interface CheckResult {
  at: Timestamp;
  ok: boolean;
  /** The HTTP status; null when no answer came. */
  status: number | null;
  responseMs: number | null;
  error: string | null;
  certificateDaysLeft: number | null;
}

export interface UptimeBucket {
  from: Timestamp;
  to: Timestamp;
  checks: number;
  up: number;
  avgResponseMs: number | null;
}

export interface CheckIncident {
  id: string;
  checkId: string;
  serviceId: string;
  startedAt: Timestamp;
  resolvedAt: Timestamp | null;
  /** The error of the failure that opened it. */
  cause: string;
  /** Consecutive failures while it was open (including those that opened it). */
  failures: number;
}
