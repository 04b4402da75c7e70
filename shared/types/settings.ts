// System settings (GET/PATCH /api/system/settings) and the server's address (GET/PUT /api/system/address).
import type { ProxyResult } from './common.js';

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
  /** Days an audit log entry is kept (1 to 3650, default 90); the log is also capped in rows (oldest pruned). */
  auditRetentionDays: number;
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
  /** null: back to the default (90). */
  auditRetentionDays?: number | null;
}

/**
 * The server's address (GET/PUT /api/system/address): what every generated URL and DNS record
 * names, and the subject of the API's certificate when Caddy serves the API over HTTPS with its
 * internal CA. It changes only when the user says so: re-issuing that certificate locks out every
 * client pinned to the old one.
 */
export interface ServerAddress {
  /** The address in force: the one set (the publicIp setting), else the one detected on the first start. */
  address: string;
  /** True when `address` is the detected one (nothing set). */
  detected: boolean;
  /** The address detected on the first start and kept since (never re-detected). */
  detectedAddress: string;
  /**
   * SHA-256 of the API certificate's DER as served now for `address`, lower-case hex without
   * colons (the installer's BERTH_CERT_SHA256); null when this daemon does not serve its API over
   * HTTPS with Caddy's certificate, or no certificate for `address` was served in time.
   */
  fingerprint: string | null;
  /** Where clients reach the API with that certificate, `https://<address>:<port>`; null when it is not served over HTTPS here. */
  apiUrl: string | null;
}

/** PUT /api/system/address's answer. */
export interface ServerAddressChange {
  address: ServerAddress;
  /** False when the address was already this one: nothing was written and the certificate is the same. */
  changed: boolean;
  /** The fingerprint served before the change (null: none served), for the re-pin message. */
  previousFingerprint: string | null;
  /** The reverse proxy's answer to the new configuration (the API listener's certificate follows it). */
  proxy: ProxyResult;
}
