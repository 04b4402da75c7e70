// Delivering one notice to one channel (daemon/notify/senders.ts implements it over HTTP and SMTP),
// and the channels themselves as core/notification-channels.ts keeps them.

export const NOTIFY_EVENTS = ['deployment_failed', 'deployment_succeeded', 'backup_failed', 'daemon_restarted'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export interface EmailConfig {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  username: string | null;
  password: string | null;
  from: string;
  to: string[];
}

export type ChannelConfig =
  | { type: 'webhook'; url: string; secret: string }
  | { type: 'slack'; url: string }
  | { type: 'discord'; url: string }
  | ({ type: 'email' } & EmailConfig);

export interface Channel {
  id: string;
  name: string;
  events: NotifyEvent[];
  config: ChannelConfig;
  createdAt: string;
}

export interface Notice {
  event: string;
  at: string;
  /** One line for people (Slack, Discord, the mail's subject). */
  text: string;
  /** Ids and names for machines (the generic webhook's body). */
  data: Record<string, string | null>;
}

export interface Sender {
  /** Tries up to `attempts` times; resolves with the last outcome. */
  send(channel: Channel, notice: Notice, attempts?: number): Promise<{ ok: boolean; detail: string }>;
}
