// notify list|add|test|rm: the server's notification channels (a key over all projects). Channel
// URLs are secrets (a Slack or Discord URL carries its token), so `add` reads one from stdin when
// it is not given, and an SMTP password only from stdin.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { readFileSync } from 'node:fs';
import { CHANNEL_TYPES, DEFAULT_NOTIFY_EVENTS, NOTIFY_EVENTS } from '../../shared/constants.js';
import type { ChannelType, NotificationChannel, NotifyEvent } from '../../shared/types.js';
import { CliError, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession, type Session } from './session.js';

function parseEvents(value: string): NotifyEvent[] {
  const events = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = events.filter((e) => !(NOTIFY_EVENTS as readonly string[]).includes(e));
  if (events.length === 0 || unknown.length > 0) throw new InvalidArgumentError(`expected a comma-separated list of ${NOTIFY_EVENTS.join(', ')}`);
  return events as NotifyEvent[];
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('expected a port, 1-65535');
  return n;
}

/** A channel by id, or by a name no other channel has. */
async function channelOf(s: Session, ref: string): Promise<NotificationChannel> {
  const { channels } = await s.client.listNotificationChannels();
  const byId = channels.find((c) => c.id === ref);
  if (byId) return byId;
  const named = channels.filter((c) => c.name === ref);
  if (named.length > 1) throw usageError(`${named.length} channels are named ${ref}: use the id (${named.map((c) => c.id).join(', ')})`);
  if (named.length === 0) throw new CliError(`no notification channel ${ref} (berth notify list shows them)`);
  return named[0]!;
}

interface AddOptions {
  events: NotifyEvent[];
  host?: string;
  port: number;
  tls?: boolean;
  username?: string;
  passwordStdin?: boolean;
  from?: string;
  to?: string;
}

function emailBody(o: AddOptions): Record<string, unknown> {
  if (!o.host || !o.from || !o.to) throw usageError('an email channel needs --host, --from and --to');
  const password = o.passwordStdin ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : null;
  if (password === '') throw usageError('--password-stdin read an empty password');
  return {
    host: o.host,
    port: o.port,
    secure: Boolean(o.tls),
    username: o.username ?? null,
    password,
    from: o.from,
    to: o.to
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
  };
}

export function registerNotifyCommands(program: Command): void {
  const notify = program.command('notify').description('notification channels: who hears about failed deployments and backups (a key over all projects)');

  notify
    .command('list')
    .description('the channels, with where they send (never a secret) and their events')
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const { channels } = await s.client.listNotificationChannels();
      if (s.out.json) return channels.forEach((c) => s.out.event(c));
      if (channels.length === 0) return s.out.info('no notification channels (berth notify add adds one)');
      s.out.line(
        table(
          ['ID', 'NAME', 'TYPE', 'TARGET', 'EVENTS'],
          channels.map((c) => [c.id, c.name, c.type, c.target, c.events.join(',')]),
        ),
      );
    });

  notify
    .command('add')
    .description('add a channel; a webhook, Slack or Discord URL is read from stdin when not given (it is a secret)')
    .argument('<type>', CHANNEL_TYPES.join(', '))
    .argument('<name>')
    .argument('[url]', 'webhook, slack, discord: where notices are posted')
    .addOption(new Option('--events <list>', `comma-separated, of ${NOTIFY_EVENTS.join(', ')}`).argParser(parseEvents).default([...DEFAULT_NOTIFY_EVENTS], DEFAULT_NOTIFY_EVENTS.join(',')))
    .option('--host <host>', 'email: the SMTP server')
    .option('--port <port>', 'email: its port', parsePort, 587)
    .option('--tls', 'email: TLS from the first byte (port 465); otherwise STARTTLS when the server offers it')
    .option('--username <name>', 'email: SMTP login')
    .option('--password-stdin', 'email: read the SMTP password from stdin')
    .option('--from <address>', 'email: the sender')
    .option('--to <addresses>', 'email: the recipients, comma-separated')
    .action(async (type: string, name: string, urlArg: string | undefined, o: AddOptions, cmd: Command) => {
      if (!(CHANNEL_TYPES as readonly string[]).includes(type)) throw usageError(`the type must be one of ${CHANNEL_TYPES.join(', ')}`);
      let fields: Record<string, unknown>;
      if (type === 'email') {
        if (urlArg !== undefined) throw usageError('an email channel takes --host, --from and --to, not a URL');
        fields = emailBody(o);
      } else {
        const url = (urlArg ?? readFileSync(0, 'utf8')).trim();
        if (url === '') throw usageError('no URL given');
        fields = { url };
      }
      const s = openSession(cmd);
      const r = await s.client.createNotificationChannel({ type: type as ChannelType, name, events: o.events, ...fields });
      // the webhook's signing secret is data, answered this once: stdout
      s.out.result(r, () => r.secret ?? '');
      s.out.success(`added ${r.channel.name} (${r.channel.id})${r.secret ? '; the line above is its signing secret, shown only this once' : ''}; berth notify test ${r.channel.id} sends one now`);
    });

  notify
    .command('test')
    .description('send one notice now; exit 1 when the receiver did not take it')
    .argument('<channel>', 'name or id')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const channel = await channelOf(s, ref);
      const r = await s.client.testNotificationChannel(channel.id);
      s.out.result(r, () => '');
      if (!r.ok) throw new CliError(`${channel.name}: ${r.detail}`);
      s.out.success(`${channel.name}: ${r.detail}`);
    });

  notify
    .command('rm')
    .description('remove a channel (its URL or password goes with it)')
    .argument('<channel>', 'name or id')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const channel = await channelOf(s, ref);
      await s.client.deleteNotificationChannel(channel.id);
      s.out.result({ ok: true, channel }, () => '');
      s.out.success(`removed ${channel.name}`);
    });
}
