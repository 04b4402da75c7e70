// Notification channels and the events they send.

import type { Timestamp } from './common.js';

export type NotifyEvent =
  | 'deployment_failed'
  | 'deployment_succeeded'
  | 'backup_failed'
  | 'backup_verification_failed'
  | 'job_failed'
  | 'daemon_restarted'
  | 'check_down'
  | 'check_up'
  | 'metric_alert';

export type ChannelType = 'webhook' | 'slack' | 'discord' | 'email';

/** A notification channel as the API shows it: never a secret. */
export interface NotificationChannel {
  id: string;
  name: string;
  type: ChannelType;
  events: NotifyEvent[];
  /** Where it goes: the URL's scheme and host, or the SMTP server and recipients. */
  target: string;
  createdAt: Timestamp;
}
