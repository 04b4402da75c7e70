// Constants the daemon, the client and the desktop app agree on.
import type { BackupStorageKind, BackupTrigger, BuildMethod, ChannelType, DatabaseEngine, DnsProviderId, HttpsMode, NotifyEvent, RuntimeMode } from './types.js';

/** Environment variable keys (spec, Limits 1). */
export const ENV_KEY_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

export const BUILD_METHODS: readonly BuildMethod[] = ['auto', 'dockerfile', 'autobuild'];
export const RUNTIME_MODES: readonly RuntimeMode[] = ['web', 'worker', 'static'];
export const DATABASE_ENGINES: readonly DatabaseEngine[] = ['postgres', 'timescale', 'mysql', 'redis', 'mongodb', 'clickhouse'];

/** Constant `repoUrl` values that mark a service's kind (spec, Service). */
export const REPO_URL_IMAGE = 'docker-image';
export const REPO_URL_DATABASE = 'database';

export const BACKUP_STORAGES = ['disk', 'remote', 'disk+remote'] as const satisfies readonly BackupStorageKind[];
export const BACKUP_TRIGGERS = ['manual', 'daily', 'weekly', 'monthly'] as const satisfies readonly BackupTrigger[];
export const DNS_PROVIDER_IDS = ['cloudflare', 'namecheap', 'spaceship'] as const satisfies readonly DnsProviderId[];
export const HTTPS_MODES = ['acme', 'internal', 'http'] as const satisfies readonly HttpsMode[];

/** What a notification channel can be told about, and the kinds of channel. */
export const NOTIFY_EVENTS = [
  'deployment_failed',
  'deployment_succeeded',
  'backup_failed',
  'backup_verification_failed',
  'job_failed',
  'daemon_restarted',
  'check_down',
  'check_up',
  'metric_alert',
] as const satisfies readonly NotifyEvent[];
export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'email'] as const satisfies readonly ChannelType[];
/** What a new channel hears about unless told otherwise: the failures. */
export const DEFAULT_NOTIFY_EVENTS: readonly NotifyEvent[] = ['deployment_failed', 'backup_failed', 'backup_verification_failed', 'job_failed', 'daemon_restarted', 'check_down', 'check_up'];
