// Notification channels: where Berth tells people that a deployment or a backup failed, that one
// went live, or that the daemon came back after a crash. Add, change, send a test, remove.
// Channel URLs and SMTP passwords are secrets the server never shows again: a change leaves empty
// what it keeps.
import { useState } from 'react';
import { CHANNEL_TYPES, DEFAULT_NOTIFY_EVENTS, NOTIFY_EVENTS } from '../../../../../shared/constants.js';
import type { ChannelType, NotificationChannel, NotifyEvent, SystemSettings, SystemSettingsPatch } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field, Modal, ShownOnce } from '../../ui/kit';
import { useNotify } from '../../ui/notify';
import { apiPath } from '../../../../../shared/api-routes.js';

const EVENT_LABELS: Record<NotifyEvent, string> = {
  deployment_failed: 'A deployment failed',
  deployment_succeeded: 'A deployment went live',
  backup_failed: 'A backup failed',
  backup_verification_failed: 'A restore test of a backup failed',
  job_failed: 'A scheduled job run failed or timed out',
  daemon_restarted: 'The daemon restarted after a crash',
  check_down: 'An uptime check opened an incident (a service is down)',
  check_up: 'An uptime check recovered (the incident is resolved)',
  metric_alert: 'A metric alert fired or cleared (CPU, memory, disk filling up)',
};
const TYPE_LABELS: Record<ChannelType, string> = { webhook: 'Webhook', slack: 'Slack', discord: 'Discord', email: 'E-mail' };
const URL_HINTS: Record<Exclude<ChannelType, 'email'>, string> = {
  webhook: 'Receives JSON signed with a secret (X-Berth-Signature-256), shown once after adding',
  slack: 'An incoming webhook: https://hooks.slack.com/services/…',
  discord: 'A channel webhook: https://discord.com/api/webhooks/…',
};
const LIST = ['notifications'];

/** `settings`: the system settings, for the private-targets switch (absent while they load). */
export function Notifications({ settings }: { settings?: SystemSettings | undefined }) {
  const q = useGet<{ channels: NotificationChannel[] }>(LIST, apiPath('notifications.list'));
  const [editing, setEditing] = useState<NotificationChannel | 'new' | null>(null);
  const channels = q.data?.channels ?? [];
  return (
    <section className="card stack" aria-label="Notifications">
      <div className="row between">
        <h2 className="h3">Notifications</h2>
        <Button onClick={() => setEditing('new')}>Add channel</Button>
      </div>
      <p className="muted small">Webhooks, Slack, Discord or e-mail, told about the events each channel picks. Each notice gets three tries.</p>
      {settings ? <PrivateTargets allowed={settings.allowPrivateNotifyTargets} /> : null}
      <ErrorNote error={q.error} />
      {q.data && channels.length === 0 ? <p className="muted small">No channels yet: nobody hears about a failed deployment unless they are looking.</p> : null}
      <ul className="list">
        {channels.map((c) => (
          <li key={c.id} className="list-row row between" aria-label={`Channel ${c.name}`}>
            <span className="stack-tight">
              <span>
                <span className="strong">{c.name}</span> <span className="badge tone-muted">{TYPE_LABELS[c.type]}</span>
              </span>
              <span className="muted small">
                {c.target} · {c.events.map((e) => EVENT_LABELS[e]).join(', ')}
              </span>
            </span>
            <span className="row">
              <TestChannel channel={c} />
              <Button onClick={() => setEditing(c)}>Edit</Button>
              <DeleteChannel channel={c} />
            </span>
          </li>
        ))}
      </ul>
      {editing ? <ChannelForm channel={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
    </section>
  );
}

/** The system setting that lets channels send to this server (loopback) and link-local addresses. */
function PrivateTargets({ allowed }: { allowed: boolean }) {
  const save = useAction<SystemSettingsPatch>('PATCH', apiPath('system.settings.patch'), { invalidate: [['settings']], success: 'Notification targets saved' });
  return (
    <label className="check small">
      <input type="checkbox" checked={allowed} disabled={save.isPending} onChange={(e) => save.mutate({ allowPrivateNotifyTargets: e.target.checked })} />
      {" Allow channels to this server and link-local addresses (loopback, 169.254/16); Caddy's admin API is refused regardless"}
    </label>
  );
}

function TestChannel({ channel }: { channel: NotificationChannel }) {
  const notify = useNotify();
  const test = useAction<undefined, { ok: boolean; detail: string }>('POST', apiPath('notifications.test', { channelId: channel.id }), {
    onSuccess: (r) => (r.ok ? notify.ok(`Test notice delivered to ${channel.name}`) : notify.error(`${channel.name}: ${r.detail}`)),
  });
  return (
    <Button busy={test.isPending} onClick={() => test.mutate(undefined)}>
      Send test
    </Button>
  );
}

function DeleteChannel({ channel }: { channel: NotificationChannel }) {
  const del = useAction('DELETE', apiPath('notifications.delete', { channelId: channel.id }), { invalidate: [LIST], success: `${channel.name} removed` });
  return (
    <ConfirmButton
      label="Remove"
      title={`Remove ${channel.name}?`}
      message="It gets no more notices; its URL or password is deleted from this server."
      confirmLabel="Remove"
      busy={del.isPending}
      onConfirm={() => del.mutate(undefined)}
    />
  );
}

interface Form {
  type: ChannelType;
  name: string;
  events: NotifyEvent[];
  url: string;
  host: string;
  port: string;
  secure: '' | 'tls' | 'starttls';
  username: string;
  password: string;
  from: string;
  to: string;
}

/** The request body: everything for a new channel; for a change, only what was filled in. */
function bodyOf(f: Form, isNew: boolean): Record<string, unknown> {
  const filled = (v: string) => v.trim() !== '';
  const body: Record<string, unknown> = { name: f.name.trim(), events: f.events };
  if (isNew) body.type = f.type;
  if (f.type !== 'email') return filled(f.url) ? { ...body, url: f.url.trim() } : body;
  if (filled(f.host)) body.host = f.host.trim();
  if (filled(f.port)) body.port = Number(f.port);
  if (f.secure !== '') body.secure = f.secure === 'tls';
  if (filled(f.username)) body.username = f.username.trim();
  if (f.password !== '') body.password = f.password;
  if (filled(f.from)) body.from = f.from.trim();
  if (filled(f.to)) body.to = f.to.split(/[\s,;]+/).filter(Boolean);
  return body;
}

function ChannelForm({ channel, onClose }: { channel: NotificationChannel | null; onClose: () => void }) {
  const isNew = channel === null;
  const [f, setF] = useState<Form>({
    type: channel?.type ?? 'slack',
    name: channel?.name ?? '',
    events: channel?.events ?? [...DEFAULT_NOTIFY_EVENTS],
    url: '',
    host: '',
    port: isNew ? '587' : '',
    secure: isNew ? 'starttls' : '',
    username: '',
    password: '',
    from: '',
    to: '',
  });
  const [secret, setSecret] = useState<string | null>(null);
  const save = useAction<Record<string, unknown>, { channel: NotificationChannel; secret?: string }>(
    isNew ? 'POST' : 'PATCH',
    isNew ? apiPath('notifications.create') : apiPath('notifications.patch', { channelId: channel.id }),
    {
      invalidate: [LIST],
      success: (r) => `${r.channel.name} ${isNew ? 'added' : 'saved'}`,
      onSuccess: (r) => (r.secret ? setSecret(r.secret) : onClose()),
    },
  );
  const set = (k: keyof Form) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const keep = isNew ? undefined : 'Leave empty to keep the current one';
  const toggle = (ev: NotifyEvent, on: boolean) => setF({ ...f, events: NOTIFY_EVENTS.filter((x) => (x === ev ? on : f.events.includes(x))) });

  if (secret) {
    return (
      <Modal open title="Your webhook's signing secret" onClose={onClose}>
        <ShownOnce label="Secret" value={secret} onDone={onClose}>
          Copy it now: it is shown only this once. Check each request&apos;s X-Berth-Signature-256 header (sha256= and the HMAC-SHA256 of the body) with it.
        </ShownOnce>
      </Modal>
    );
  }
  return (
    <Modal open title={isNew ? 'Add a notification channel' : `Change ${channel.name}`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(bodyOf(f, isNew));
        }}
      >
        <div className="cols">
          <Field label="Kind">
            {(id) => (
              <select id={id} value={f.type} onChange={set('type')} disabled={!isNew}>
                {CHANNEL_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Name">{(id) => <input id={id} value={f.name} onChange={set('name')} placeholder="Team alerts" required />}</Field>
        </div>
        {f.type === 'email' ? (
          <>
            <div className="cols">
              <Field label="SMTP server" hint={keep}>
                {(id) => <input id={id} value={f.host} onChange={set('host')} placeholder="smtp.example.com" required={isNew} />}
              </Field>
              <Field label="Port" hint={keep}>
                {(id) => <input id={id} type="number" min={1} max={65535} value={f.port} onChange={set('port')} required={isNew} />}
              </Field>
            </div>
            <Field label="Encryption">
              {(id) => (
                <select id={id} value={f.secure} onChange={set('secure')}>
                  {isNew ? null : <option value="">Keep as it is</option>}
                  <option value="starttls">STARTTLS when the server offers it (port 587 or 25)</option>
                  <option value="tls">TLS from the start (port 465)</option>
                </select>
              )}
            </Field>
            <div className="cols">
              <Field label="Username" hint={keep ?? 'Optional'}>
                {(id) => <input id={id} value={f.username} onChange={set('username')} autoComplete="off" />}
              </Field>
              <Field label="Password" hint={keep ?? 'Optional; stored sealed'}>
                {(id) => <input id={id} type="password" value={f.password} onChange={set('password')} autoComplete="new-password" />}
              </Field>
            </div>
            <div className="cols">
              <Field label="From" hint={keep}>
                {(id) => <input id={id} type="email" value={f.from} onChange={set('from')} placeholder="berth@example.com" required={isNew} />}
              </Field>
              <Field label="To" hint={keep ?? 'One or more addresses, separated by commas'}>
                {(id) => <input id={id} value={f.to} onChange={set('to')} placeholder="ops@example.com" required={isNew} />}
              </Field>
            </div>
          </>
        ) : (
          <Field label={f.type === 'webhook' ? 'URL' : 'Webhook URL'} hint={keep ?? URL_HINTS[f.type]}>
            {(id) => <input id={id} type="url" value={f.url} onChange={set('url')} placeholder={isNew ? 'https://' : channel.target + '/…'} autoComplete="off" required={isNew} />}
          </Field>
        )}
        <fieldset className="radios">
          <legend>Tell it when</legend>
          {NOTIFY_EVENTS.map((ev) => (
            <label key={ev} className="check">
              <input type="checkbox" checked={f.events.includes(ev)} onChange={(e) => toggle(ev, e.target.checked)} /> {EVENT_LABELS[ev]}
            </label>
          ))}
        </fieldset>
        <ErrorNote error={save.error} />
        <div className="row end">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={save.isPending} disabled={f.events.length === 0}>
            {isNew ? 'Add channel' : 'Save'}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
