// Delivering one notice to one channel (daemon/notify/senders.ts implements it over HTTP and SMTP).
import type { Channel } from '../notification-channels.js';

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
