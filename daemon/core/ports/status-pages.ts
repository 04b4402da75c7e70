// Public status pages as core sees the store (daemon/store/status-pages-repo.ts) and the uptime
// data a page shows (the uptime checks' results and incidents, read by an adapter).
import type { StatusPageService } from '../../../shared/types.js';

export interface StatusPageRecord {
  projectId: string;
  enabled: boolean;
  hostname: string;
  title: string;
  services: StatusPageService[];
  /** The page as last rendered (what Caddy serves); null before the first render. */
  html: string | null;
  renderedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface StatusPagesRepo {
  get(projectId: string): Promise<StatusPageRecord | null>;
  findByHostname(hostname: string): Promise<StatusPageRecord | null>;
  list(): Promise<StatusPageRecord[]>;
  /** Inserts or replaces the settings (a unique hostname index backs the free-name check). */
  put(page: Omit<StatusPageRecord, 'html' | 'renderedAt'>): Promise<void>;
  setHtml(projectId: string, html: string, at: string): Promise<void>;
  delete(projectId: string): Promise<void>;
}

/** One day of a service's checks: the share of checks that succeeded, null for a day with none. */
export interface UptimeDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  ratio: number | null;
}

export interface PublicIncident {
  startedAt: string;
  resolvedAt: string | null;
}

/** What a status page may show of one service: states and times, never names, addresses or errors. */
export interface ServiceUptime {
  /** `down` while an incident of one of its checks is open; `unknown` when it has no checks. */
  state: 'up' | 'down' | 'unknown';
  /** The last 90 days, oldest first. */
  days: UptimeDay[];
  /** Newest first. */
  incidents: PublicIncident[];
}

export interface UptimeSource {
  uptimeOf(serviceId: string, days: number, now: string): Promise<ServiceUptime>;
}
