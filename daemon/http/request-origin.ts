// The scheme and host a client used to reach the API. The daemon listens on plain HTTP; where the
// API is served over HTTPS, Caddy terminates TLS (the API TLS listener, the dashboard hostname) and
// forwards from loopback with X-Forwarded-Proto. That header is believed only from a loopback peer
// (Caddy runs on the same host); from anywhere else it is the client's word and is ignored.
import type { Context } from 'koa';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * The client's address as the audit log records it: the TCP peer, or, when the peer is this host's
 * Caddy, the last X-Forwarded-For entry (the one Caddy itself appended: any earlier ones are the
 * client's word). IPv4-mapped IPv6 addresses are shown as IPv4.
 */
export function clientAddress(ctx: Context): string | null {
  const peer = ctx.req.socket.remoteAddress ?? null;
  let address = peer;
  if (peer !== null && LOOPBACK.test(peer)) {
    const forwarded = ctx
      .get('x-forwarded-for')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .at(-1);
    if (forwarded !== undefined && /^[0-9a-fA-F.:]{2,45}$/.test(forwarded)) address = forwarded;
  }
  return address === null ? null : address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

export function requestOrigin(ctx: Context): string {
  const peer = ctx.req.socket.remoteAddress ?? '';
  const forwarded = ctx.get('x-forwarded-proto').split(',')[0]!.trim().toLowerCase();
  const scheme = LOOPBACK.test(peer) && forwarded === 'https' ? 'https' : ctx.protocol;
  return `${scheme}://${ctx.host}`;
}
