// Delivering one notice to one channel (daemon/notify/senders.ts implements it over HTTP and SMTP),
// and the channels themselves as core/notification-channels.ts keeps them.

import type { ChannelType, NotifyEvent } from '../../../shared/types.js';

export { NOTIFY_EVENTS } from '../../../shared/constants.js';
export type { ChannelType, NotifyEvent };

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

export type ChannelConfig = { type: 'webhook'; url: string; secret: string } | { type: 'slack'; url: string } | { type: 'discord'; url: string } | ({ type: 'email' } & EmailConfig);

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
