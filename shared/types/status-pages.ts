// A project's public status page (issue 30): a hostname Caddy serves without a key, showing the
// services the owner chose under the labels the owner chose, their state, 90 days of uptime and the
// incidents of their uptime checks. Nothing else of the project is on it.

export interface StatusPageService {
  serviceId: string;
  /** What the public page calls it (never the service's own name unless the owner typed it). */
  label: string;
}

export interface StatusPage {
  projectId: string;
  enabled: boolean;
  hostname: string;
  title: string;
  services: StatusPageService[];
  /** `https://<hostname>/` (`http://` when Berth serves plain HTTP). */
  url: string;
  /** When the page Caddy serves was last rendered; null before the first. */
  renderedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** PUT /api/projects/:projectId/status-page */
export interface StatusPageInput {
  enabled?: boolean;
  hostname: string;
  title?: string;
  services: StatusPageService[];
}
