// The scheme and host a client used to reach the API. The daemon listens on plain HTTP; where the
// API is served over HTTPS, Caddy terminates TLS (the API TLS listener, the dashboard hostname) and
// forwards from loopback with X-Forwarded-Proto. That header is believed only from a loopback peer
// (Caddy runs on the same host); from anywhere else it is the client's word and is ignored.
import type { Context } from 'koa';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

export function requestOrigin(ctx: Context): string {
  const peer = ctx.req.socket.remoteAddress ?? '';
  const forwarded = ctx.get('x-forwarded-proto').split(',')[0]!.trim().toLowerCase();
  const scheme = LOOPBACK.test(peer) && forwarded === 'https' ? 'https' : ctx.protocol;
  return `${scheme}://${ctx.host}`;
}
