// The client's calls for the server: metrics (live and history, Berth's footprint, the alerts), disk, quotas, failure explanations and AI providers,
// notification channels, system settings, the server's address, upgrades of Berth, Berth's own backup, DNS providers and the audit log.
import type {
  AiProvider,
  AuditPage,
  AuditQuery,
  BerthFootprint,
  HostMetricsHistory,
  MetricAlertSettings,
  MetricsRangeQuery,
  ServiceMetricsHistory,
  AiProviderInput,
  DiskState,
  DnsProviderCredentials,
  DnsProviderId,
  DnsProviderStatus,
  DnsRecordResult,
  Domain,
  Explanation,
  NotificationChannel,
  ProjectQuotas,
  ProjectQuotasAnswer,
  ProxyResult,
  QuotaValues,
  ServerAddress,
  ServerAddressChange,
  ServerBackupRun,
  ServerBackups,
  ServerBackupsPatch,
  ServerUpgrade,
  SystemMetrics,
  SystemSettings,
  SystemSettingsPatch,
} from '../types.js';
import { ProjectsClient } from './projects.js';

export class SystemClient extends ProjectsClient {
  systemMetrics(): Promise<SystemMetrics> {
    return this.api('system.metrics', {});
  }
  /** A service's metrics history (10 s, 1 min or 10 min points; the step follows the range unless given). */
  serviceMetrics(serviceId: string, query: MetricsRangeQuery = {}): Promise<ServiceMetricsHistory> {
    return this.api('services.metrics', { serviceId }, undefined, { ...query });
  }
  /** The host's metrics history (a key over all projects). */
  hostMetricsHistory(query: MetricsRangeQuery = {}): Promise<HostMetricsHistory> {
    return this.api('system.metrics.history', {}, undefined, { ...query });
  }
  /** Berth's own footprint: the daemon's and Caddy's memory and CPU, the store's size (a key over all projects). */
  footprint(): Promise<BerthFootprint> {
    return this.api('system.footprint', {});
  }
  metricAlerts(): Promise<MetricAlertSettings> {
    return this.api('system.metric-alerts', {});
  }
  patchMetricAlerts(input: Partial<MetricAlertSettings>): Promise<MetricAlertSettings> {
    return this.api('system.metric-alerts.patch', {}, input);
  }

  /** Whether new builds, deploys and backups are paused for lack of disk (volumes and threshold for keys over all projects). */
  systemDisk(): Promise<{ disk: DiskState }> {
    return this.api('system.disk', {});
  }
  /** `minFreeBytes: null` goes back to the server's default (BERTH_DISK_MIN_FREE_MB). */
  patchSystemDisk(input: { minFreeBytes: number | null }): Promise<{ disk: DiskState }> {
    return this.api('system.disk.patch', {}, input);
  }
  /** The server-wide default quotas (a key over all projects). */
  defaultQuotas(): Promise<{ quotas: QuotaValues }> {
    return this.api('system.quotas', {});
  }
  patchDefaultQuotas(input: Partial<ProjectQuotas>): Promise<{ quotas: QuotaValues }> {
    return this.api('system.quotas.patch', {}, input);
  }
  projectQuotas(projectId: string): Promise<ProjectQuotasAnswer> {
    return this.api('quotas.get', { projectId });
  }
  /** A number sets a quota, null goes back to the server's default (a write key over all projects). */
  patchProjectQuotas(projectId: string, input: Partial<ProjectQuotas>): Promise<ProjectQuotasAnswer> {
    return this.api('quotas.patch', { projectId }, input);
  }

  // Failure explanations and the AI providers behind them
  explainFailure(deploymentId: string, input: { providerId: string; model?: string }): Promise<{ explanation: Explanation }> {
    return this.api('deployments.explain-failure', { deploymentId }, input);
  }
  listAiProviders(): Promise<{ providers: AiProvider[] }> {
    return this.api('ai-providers.list', {});
  }
  putAiProvider(providerId: string, input: AiProviderInput): Promise<{ provider: AiProvider }> {
    return this.api('ai-providers.put', { providerId }, input);
  }
  deleteAiProvider(providerId: string): Promise<{ ok: true }> {
    return this.api('ai-providers.delete', { providerId });
  }

  // Notification channels (a key over all projects)
  listNotificationChannels(): Promise<{ channels: NotificationChannel[] }> {
    return this.api('notifications.list', {});
  }
  /** A webhook's answer carries its signing secret, this once. */
  createNotificationChannel(
    input: Record<string, unknown> & { type: NotificationChannel['type']; name: string; events: NotificationChannel['events'] },
  ): Promise<{ channel: NotificationChannel; secret?: string }> {
    return this.api('notifications.create', {}, input);
  }
  updateNotificationChannel(channelId: string, patch: Record<string, unknown>): Promise<{ channel: NotificationChannel }> {
    return this.api('notifications.patch', { channelId }, patch);
  }
  deleteNotificationChannel(channelId: string): Promise<{ ok: true }> {
    return this.api('notifications.delete', { channelId });
  }
  testNotificationChannel(channelId: string): Promise<{ ok: boolean; detail: string }> {
    return this.api('notifications.test', { channelId });
  }

  // System settings, DNS providers and A records for custom domains
  systemSettings(): Promise<{ settings: SystemSettings; dnsProviders: DnsProviderStatus[] }> {
    return this.api('system.settings', {});
  }
  patchSystemSettings(patch: SystemSettingsPatch): Promise<{ settings: SystemSettings; dnsProviders: DnsProviderStatus[]; proxy: ProxyResult }> {
    return this.api('system.settings.patch', {}, patch);
  }
  /** The server's address, whether it was detected or set, and the API certificate's fingerprint. */
  serverAddress(): Promise<{ address: ServerAddress }> {
    return this.api('system.address', {});
  }
  /** Sets the server's address: the API certificate is re-issued for it (every pinned client must re-pin). */
  setServerAddress(address: string): Promise<ServerAddressChange> {
    return this.api('system.address.set', {}, { address });
  }
  /** Berth's version, a newer release when the feed names one, and the last upgrade's progress (a key over all projects). */
  serverUpgrade(): Promise<{ upgrade: ServerUpgrade }> {
    return this.api('system.upgrade', {});
  }
  /** Hands `from` (an https URL or an absolute path on the server) to the upgrader: 202, then follow serverUpgrade(). */
  startServerUpgrade(from: string): Promise<{ upgrade: ServerUpgrade }> {
    return this.api('system.upgrade.start', {}, { from });
  }

  // Berth's own backup (a key over all projects; a write key to change, run, download or delete)
  /** The settings (the passphrase only as `passphraseSet`) and the runs, newest first. */
  serverBackups(): Promise<ServerBackups> {
    return this.api('system.backups', {});
  }
  patchServerBackups(patch: ServerBackupsPatch): Promise<ServerBackups> {
    return this.api('system.backups.patch', {}, patch);
  }
  /** Starts a run now (202, `running`); `passphrase` is used for this run only, else the stored one. */
  runServerBackup(passphrase?: string): Promise<{ run: ServerBackupRun }> {
    return this.api('system.backups.run', {}, passphrase === undefined ? {} : { passphrase });
  }
  /** The encrypted archive of a succeeded run, for streaming to disk; throws ApiError on an error status. */
  openServerBackupDownload(runId: string, signal?: AbortSignal): Promise<Response> {
    return this.openDownload('system.backups.download', { runId }, signal);
  }
  /** Removes the run's archive and its `.sha256` from where they are, and the run. */
  deleteServerBackup(runId: string): Promise<{ ok: true }> {
    return this.api('system.backups.delete', { runId });
  }
  /** The audit log, newest first (a key over all projects); pass the answer's nextCursor as `before` for older entries. */
  auditLog(query: AuditQuery = {}): Promise<AuditPage> {
    return this.api('audit.list', {}, undefined, { ...query });
  }
  connectDnsProvider(providerId: DnsProviderId, credentials: DnsProviderCredentials): Promise<{ provider: DnsProviderStatus }> {
    return this.api('dns-providers.put', { providerId }, credentials);
  }
  disconnectDnsProvider(providerId: DnsProviderId): Promise<{ ok: true }> {
    return this.api('dns-providers.delete', { providerId });
  }
  createDnsRecord(serviceId: string, domainId: string, providerId: DnsProviderId): Promise<{ ok: true; result: DnsRecordResult; domain: Domain }> {
    return this.api('domains.dns-record', { serviceId, domainId }, { providerId });
  }
}
