// Notification channels (a system setting; all-projects write key): a generic webhook (JSON body,
// HMAC-SHA256 signature header), Slack and Discord incoming webhooks, and e-mail over SMTP. Each
// channel picks the events it wants. The whole list is one sealed setting: webhook URLs of Slack
// and Discord are secrets themselves, like the SMTP password and the signing secret. Views never
// show a secret: only the channel's host.
import { randomBytes } from 'node:crypto';
import type { NotificationChannel } from '../../shared/types.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { InvalidInput, NotFound } from './errors.js';
import { newId } from './ids.js';
import type { NotifyTargets } from './notify-targets.js';
import type { Channel, ChannelConfig, ChannelType, EmailConfig, Notice, NotifyEvent, Sender } from './ports/notice-sender.js';
import { serial } from './serial.js';
import type { SettingsRepo } from './ports/store.js';
import { NO_EVENTS, type EventSink } from './events.js';

export { NOTIFY_EVENTS } from './ports/notice-sender.js';
export type { Channel, NotifyEvent } from './ports/notice-sender.js';

export type ChannelView = NotificationChannel;

export type ChannelInput = { name: string; events: NotifyEvent[] } & (
  | { type: 'webhook'; url: string }
  | { type: 'slack'; url: string }
  | { type: 'discord'; url: string }
  | ({ type: 'email' } & EmailConfig)
);

/** A change to a channel: any of its name, events and its type's own fields (`null` clears an SMTP username or password). */
export type ChannelPatch = { name?: string; events?: NotifyEvent[]; url?: string } & Partial<EmailConfig>;

const SETTING = 'notificationChannels';
const FIELDS_OF: Record<ChannelType, readonly string[]> = {
  webhook: ['url'],
  slack: ['url'],
  discord: ['url'],
  email: ['host', 'port', 'secure', 'username', 'password', 'from', 'to'],
};

export class NotificationChannels {
  /** The channels are one setting: every read-then-write runs alone, or two at once would lose one. */
  private serially = serial();

  constructor(
    private settings: SettingsRepo,
    private clock: Clock,
    private sender: Sender,
    /** Where channels may send (loopback and link-local only when a setting allows; never Caddy's admin API). */
    private targets: NotifyTargets,
    private events: EventSink = NO_EVENTS,
  ) {}

  private announce(c: Pick<Channel, 'id' | 'name'>, action: 'created' | 'updated' | 'deleted'): void {
    this.events.publish({ type: 'notification-channel', allProjects: true, data: { channelId: c.id, name: c.name, action } });
  }

  async all(): Promise<Channel[]> {
    const sealed = await this.settings.getSealed(SETTING);
    return sealed === null ? [] : (JSON.parse(sealed) as Channel[]);
  }

  async list(access: Access): Promise<ChannelView[]> {
    access.requireAllProjects('reading notification channels');
    return (await this.all()).map(viewOf);
  }

  /** Creates a channel; a generic webhook's signing secret is answered here only. */
  async create(access: Access, input: ChannelInput): Promise<{ channel: ChannelView; secret?: string }> {
    access.requireWrite();
    access.requireAllProjects('changing notification channels');
    const { name, events, ...rest } = input;
    const secret = rest.type === 'webhook' ? randomBytes(32).toString('hex') : undefined;
    const config = (rest.type === 'webhook' ? { ...rest, secret } : rest) as ChannelConfig;
    const channel: Channel = { id: newId(), name, events: [...new Set(events)], config, createdAt: this.clock.now() };
    await this.targets.check(config, 'saving');
    await this.serially(async () => this.save([...(await this.all()), channel]));
    this.announce(channel, 'created');
    return secret === undefined ? { channel: viewOf(channel) } : { channel: viewOf(channel), secret };
  }

  async delete(access: Access, id: string): Promise<void> {
    access.requireWrite();
    access.requireAllProjects('changing notification channels');
    await this.serially(async () => {
      const channels = await this.all();
      const gone = channels.find((c) => c.id === id);
      if (!gone) throw new NotFound('notification channel not found');
      await this.save(channels.filter((c) => c.id !== id));
      this.announce(gone, 'deleted');
    });
  }

  /** Changes what `patch` names and keeps the rest (a webhook keeps its signing secret). The type stays. */
  async update(access: Access, id: string, patch: ChannelPatch): Promise<{ channel: ChannelView }> {
    access.requireWrite();
    access.requireAllProjects('changing notification channels');
    return this.serially(async () => {
      const channels = await this.all();
      const old = channels.find((c) => c.id === id);
      if (!old) throw new NotFound('notification channel not found');
      const { name, events, ...fields } = patch;
      const foreign = Object.keys(fields).filter((k) => !FIELDS_OF[old.config.type].includes(k));
      if (foreign.length > 0) throw new InvalidInput(`${foreign.join(', ')}: not a field of a ${old.config.type} channel`);
      const channel: Channel = { ...old, name: name ?? old.name, events: events ? [...new Set(events)] : old.events, config: { ...old.config, ...fields } as ChannelConfig };
      // A kept SMTP password goes only to the server it was given for. (The URLs of webhook, Slack
      // and Discord channels carry their own secret: a new URL is a new secret.)
      if (old.config.type === 'email' && channel.config.type === 'email' && old.config.password && !('password' in fields)) {
        const was = `${old.config.host}:${old.config.port}`;
        const now = `${channel.config.host}:${channel.config.port}`;
        if (was.toLowerCase() !== now.toLowerCase()) throw new InvalidInput(`the channel's SMTP server moves from ${was} to ${now}: re-enter the password to send it to a new host`, 'secret_required');
      }
      if (['url', 'host', 'port'].some((k) => k in fields)) await this.targets.check(channel.config, 'saving');
      await this.save(channels.map((c) => (c.id === id ? channel : c)));
      this.announce(channel, 'updated');
      return { channel: viewOf(channel) };
    });
  }

  /** Sends a test notice now (one attempt) and says how it went. */
  async test(access: Access, id: string): Promise<{ ok: boolean; detail: string }> {
    access.requireWrite();
    access.requireAllProjects('testing notification channels');
    const channel = (await this.all()).find((c) => c.id === id);
    if (!channel) throw new NotFound('notification channel not found');
    const notice: Notice = { event: 'test', at: this.clock.now(), text: `Berth: a test notification for channel "${channel.name}"`, data: {} };
    return this.sender.send(channel, notice, 1);
  }

  private async save(channels: Channel[]): Promise<void> {
    await this.settings.setSealed(SETTING, JSON.stringify(channels), this.clock.now());
  }
}

function viewOf(c: Channel): ChannelView {
  const cfg = c.config;
  const target = cfg.type === 'email' ? `smtp://${cfg.host}:${cfg.port} to ${cfg.to.join(', ')}` : safeHost(cfg.url);
  return { id: c.id, name: c.name, type: cfg.type, events: c.events, target, createdAt: c.createdAt };
}

function safeHost(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid URL)';
  }
}
