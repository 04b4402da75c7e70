// Console sign-in over cookies, next to Bearer keys:
// - POST /api/session {key} exchanges a key for an HttpOnly SameSite=Strict session cookie (Secure
//   over HTTPS; X-Forwarded-Proto is trusted only from a loopback peer, i.e. Caddy on this host);
//   GET answers the session's key, DELETE ends it.
// - A request without an Authorization header but with the cookie is authenticated by the session,
//   and only when it passes a same-origin check (Sec-Fetch-Site / Origin): a cross-site request is
//   refused with 403 before anything runs (CSRF).
// - Event streams (sse-streams.ts) know their key and session: ending a session or revoking its key
//   closes them at once.
import type { Context, Next } from 'koa';
import { apiPath } from '../../shared/api-routes.js';
import { Access } from '../core/access.js';
import { Forbidden, InvalidInput } from '../core/errors.js';
import type { SessionService } from '../core/sessions.js';
import { keyView } from '../core/views.js';
import { route } from './route-table.js';
import type { SseStreams } from './sse-streams.js';
import { noteAudit } from './audit.js';

const SESSION_COOKIE = 'berth_session';
/**
 * The cookie's name over HTTPS. The `__Host-` prefix makes browsers accept it only with Secure,
 * Path=/ and no Domain, set by this very host: a tenant's app on a subdomain (`app.example.com`
 * beside the console's `berth.example.com`) cannot plant one for the console (cookie tossing), as
 * it can a plain name with `Domain=example.com`. Over plain HTTP (no Secure possible) the plain
 * name stays; a plain-named cookie is never read over HTTPS.
 */
const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
const SESSION_PATH = apiPath('session.get');
const KEY_PATH = /^\/api\/keys\/([^/]+)$/;

function isLoopback(addr: string | undefined): boolean {
  return !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));
}

/** HTTPS directly, or through a reverse proxy on this host that says so. */
function isHttps(ctx: Context): boolean {
  const socket = ctx.req.socket as { encrypted?: boolean; remoteAddress?: string };
  if (socket.encrypted) return true;
  return isLoopback(socket.remoteAddress) && ctx.get('x-forwarded-proto').split(',')[0]!.trim().toLowerCase() === 'https';
}

/** The request comes from a page of this very origin (or a direct navigation for a safe method). */
function sameOrigin(ctx: Context): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = ctx.get('origin');
  if (origin) return origin === `${isHttps(ctx) ? 'https' : 'http'}://${ctx.get('host')}`;
  if (site) return true;
  return ctx.method === 'GET' || ctx.method === 'HEAD';
}

function cookieName(ctx: Context): string {
  return isHttps(ctx) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

function readCookie(ctx: Context): string | null {
  const name = cookieName(ctx);
  for (const part of ctx.get('cookie').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{16,200}$/.test(value) ? value : null;
    }
  }
  return null;
}

function setCookie(ctx: Context, value: string, maxAgeSeconds: number): void {
  const attrs = [`${cookieName(ctx)}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (isHttps(ctx)) attrs.push('Secure');
  ctx.set('Set-Cookie', attrs.join('; '));
}

function isSessionExchange(ctx: Context): boolean {
  return ctx.path === SESSION_PATH && (ctx.method === 'POST' || ctx.method === 'DELETE');
}

/**
 * Runs before the Bearer check: authenticates cookie requests, lets the session exchange through,
 * and ends a revoked key's streams. Bearer requests pass untouched to `bearer`.
 */
export function sessionLayer(sessions: SessionService, streams: SseStreams, bearer: (ctx: Context, next: Next) => Promise<void>, openPaths: readonly string[]) {
  return (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method === 'GET' && openPaths.includes(ctx.path)) return next(); // health answers whatever cookie comes along
    // A read with a Bearer header: no cookie is looked at, no session exchange, no revocation.
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.get('authorization')) return bearer(ctx, next);
    return cookieOrBearer(ctx, next);
  };

  async function cookieOrBearer(ctx: Context, next: Next): Promise<void> {
    const cookie = ctx.get('authorization') ? null : readCookie(ctx);
    if (cookie !== null || isSessionExchange(ctx)) {
      if (!sameOrigin(ctx)) throw new Forbidden('cross-site request refused: the console only accepts requests from its own origin');
    }
    if (cookie !== null && !isSessionExchange(ctx)) {
      const session = await sessions.authenticate(cookie).catch((err: unknown) => {
        setCookie(ctx, '', 0); // a dead session: the browser forgets it
        throw err;
      });
      ctx.state.access = new Access(session.key);
      ctx.state.sessionHash = session.secretHash;
      await next();
    } else if (isSessionExchange(ctx)) {
      await next();
    } else {
      await bearer(ctx, next);
    }
    // Revocation through the API: that key's open streams end now (its sessions went with the key).
    const revoked = ctx.method === 'DELETE' && ctx.status === 200 ? KEY_PATH.exec(ctx.path) : null;
    if (revoked) streams.closeKey(revoked[1]!);
  }
}

/** POST, GET and DELETE /api/session (handler definitions like those in routes/). */
export const sessionRoutes = {
  ...route('session.open', {
    handler: async ({ ctx }, { core }) => {
      const body = ctx.request.body as { key?: unknown } | undefined;
      const key = body?.key;
      if (typeof key !== 'string' || key.trim() === '') throw new InvalidInput('key is required: paste an API key');
      const opened = await core.sessions.open(key.trim());
      noteAudit(ctx, { key: opened.key });
      setCookie(ctx, opened.secret, Math.floor((Date.parse(opened.expiresAt) - Date.now()) / 1000));
      ctx.set('Cache-Control', 'no-store');
      return { key: keyView(opened.key), expiresAt: opened.expiresAt };
    },
  }),
  ...route('session.get', {
    handler: ({ ctx, access }) => {
      ctx.set('Cache-Control', 'no-store');
      return { key: keyView(access.key), session: typeof ctx.state.sessionHash === 'string' };
    },
  }),
  ...route('session.close', {
    handler: async ({ ctx }, { core, sse }) => {
      const cookie = readCookie(ctx);
      if (cookie !== null) {
        const info = await core.sessions.authenticate(cookie).catch(() => null);
        if (info) {
          noteAudit(ctx, { key: info.key });
          await core.sessions.end(info.secretHash);
          sse.closeSession(info.secretHash);
        }
      }
      setCookie(ctx, '', 0);
      return { ok: true };
    },
  }),
};
