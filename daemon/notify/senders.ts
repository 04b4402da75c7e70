// Delivering one notice to one channel: HTTP POSTs (generic webhook with an HMAC-SHA256 signature
// header, Slack, Discord) and SMTP mail through nodemailer (loaded when a mail is first sent: most
// servers never send one, and it would stay resident). Bounded: a timeout per attempt and a
// few attempts with growing pauses. Never throws: the outcome is answered and failures are logged
// (without the URL, which is a secret for Slack and Discord).
import { createHmac } from 'node:crypto';
import type { Channel } from '../core/notification-channels.js';
import { NotifyTargetRefused } from '../core/notify-targets.js';
import type { Notice, Sender } from '../core/ports/notice-sender.js';
import { discordPayload, slackPayload } from './chat-text.js';

const ATTEMPT_TIMEOUT_MS = 10_000;
const SIGNATURE_HEADER = 'X-Berth-Signature-256';

/**
 * `check` runs just before each attempt (core/notify-targets.ts: the target's name is resolved then
 * and every address checked); a refused target is not retried.
 */
export function channelSender(log: (message: string, err?: unknown) => void, pausesMs: readonly number[] = [1000, 5000], check: (channel: Channel) => Promise<void> = async () => {}): Sender {
  return {
    async send(channel, notice, attempts = pausesMs.length + 1) {
      let outcome = { ok: false, detail: 'not sent' };
      for (let i = 0; i < attempts; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, pausesMs[i - 1] ?? pausesMs.at(-1) ?? 1000));
        let refused = false;
        outcome = await check(channel)
          .then(() => sendOnce(channel, notice))
          .then(
            () => ({ ok: true, detail: 'delivered' }),
            (err: unknown) => {
              refused = err instanceof NotifyTargetRefused;
              return { ok: false, detail: err instanceof Error ? `${refused ? 'not sent: ' : ''}${err.message}` : String(err) };
            },
          );
        if (outcome.ok || refused) break;
      }
      if (!outcome.ok) log(`notification channel "${channel.name}" (${channel.config.type}): ${notice.event} not delivered after ${attempts} attempt(s): ${outcome.detail}`);
      return outcome;
    },
  };
}

async function sendOnce(channel: Channel, notice: Notice): Promise<void> {
  const cfg = channel.config;
  switch (cfg.type) {
    case 'webhook': {
      const body = JSON.stringify({ event: notice.event, at: notice.at, text: notice.text, ...notice.data });
      const signature = `sha256=${createHmac('sha256', cfg.secret).update(body).digest('hex')}`;
      return post(cfg.url, body, { 'X-Berth-Event': notice.event, [SIGNATURE_HEADER]: signature });
    }
    case 'slack':
      return post(cfg.url, JSON.stringify(slackPayload(notice.text)), {});
    case 'discord':
      return post(cfg.url, JSON.stringify(discordPayload(notice.text)), {});
    case 'email': {
      const { default: nodemailer } = await import('nodemailer');
      const transport = nodemailer.createTransport({
        host: cfg.host,
        port: cfg.port,
        secure: cfg.secure,
        ...(cfg.username ? { auth: { user: cfg.username, pass: cfg.password ?? '' } } : {}),
        connectionTimeout: ATTEMPT_TIMEOUT_MS,
        greetingTimeout: ATTEMPT_TIMEOUT_MS,
        socketTimeout: ATTEMPT_TIMEOUT_MS,
      });
      try {
        await transport.sendMail({
          from: cfg.from,
          to: cfg.to,
          subject: notice.text.slice(0, 200),
          text: `${notice.text}\n\n${Object.entries(notice.data)
            .map(([k, v]) => `${k}: ${v ?? ''}`)
            .join('\n')}\n`,
        });
      } finally {
        transport.close();
      }
    }
  }
}

/** What kind of failure it was, without the URL (its path is the secret of a Slack or Discord hook). */
function requestFailure(err: unknown): string {
  if ((err as Error).name === 'TimeoutError') return `the receiver did not answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return `the request failed (${cause.code})`;
  // fetch refuses some ports outright (the browsers' blocked list: 9, 25, 6000, 6665-6669...)
  if (cause?.message === 'bad port') return 'the request failed: fetch refuses this port (a port browsers block); use another';
  return `the request failed (${(err as Error).name})`;
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'user-agent': 'Berth-Notifications', ...headers },
    redirect: 'error',
    signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
  }).catch((err: unknown) => {
    throw new Error(requestFailure(err));
  });
  await res.arrayBuffer().catch(() => undefined);
  if (res.status < 200 || res.status >= 300) throw new Error(`the receiver answered HTTP ${res.status}`);
}
