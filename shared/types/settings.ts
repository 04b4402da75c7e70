// System settings (GET/PATCH /api/system/settings).

export type HttpsMode = 'acme' | 'internal' | 'http';

export interface SystemSettings {
  rootDomain: string | null;
  /** The IPv4 DNS records point at: the stored override, else the address detected at start. */
  publicIp: string;
  /** True when publicIp is the detected address (no override stored). */
  publicIpDetected: boolean;
  acmeEmail: string | null;
  /** null: not chosen (the proxy's default applies). */
  httpsMode: HttpsMode | null;
  dashboardHostname: string | null;
  /** Wall-clock limits on deployment work, in seconds (5 to 86400): a step over its limit is stopped and the deployment fails. */
  buildTimeoutSeconds: number;
  pullTimeoutSeconds: number;
  cloneTimeoutSeconds: number;
  /** Deployments one project may have queued at once (1 to 1000); one more is refused with 429. */
  maxQueuedPerProject: number;
  /** Notification channels may send to this server (loopback) and link-local addresses (default false); Caddy's admin API is refused regardless. */
  allowPrivateNotifyTargets: boolean;
}

/** Any subset; null clears a field (publicIp: back to the detected address; a limit: back to its default). */
export interface SystemSettingsPatch {
  rootDomain?: string | null;
  publicIp?: string | null;
  acmeEmail?: string | null;
  httpsMode?: HttpsMode;
  dashboardHostname?: string | null;
  buildTimeoutSeconds?: number | null;
  pullTimeoutSeconds?: number | null;
  cloneTimeoutSeconds?: number | null;
  maxQueuedPerProject?: number | null;
  allowPrivateNotifyTargets?: boolean;
}
