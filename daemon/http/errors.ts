// The one error funnel: every failure leaves as `{error: {code, message}}` with its status.
import type { Context, Next } from 'koa';
import { BerthError } from '../core/errors.js';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
}

const CODE_BY_STATUS: Record<number, string> = {
  400: 'invalid_input',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  501: 'not_implemented',
};

export type Logger = (message: string, err?: unknown) => void;

/** Says when an error means a part Berth relies on is down (the Docker Engine): its 503 message, else null. */
export type Unavailable = (err: unknown) => string | null;

export function errorFunnel(log: Logger, unavailable: Unavailable = () => null) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: { code: 'not_found', message: `no route for ${ctx.method} ${ctx.path}` } };
      }
    } catch (err) {
      const { status, code, message } = describe(err, unavailable);
      // Typed errors (a 502 from an AI provider, ...) are answers with their reason, not daemon faults.
      if (status >= 500 && !(err instanceof BerthError)) log(`${ctx.method} ${ctx.path} failed`, err);
      if (ctx.headerSent || !ctx.writable) return; // a stream already started; nothing to send
      ctx.status = status;
      ctx.body = { error: { code, message } };
    }
  };
}

function describe(err: unknown, unavailable: Unavailable): { status: number; code: string; message: string } {
  if (err instanceof BerthError) return { status: err.status, code: err.code, message: err.message };
  // dockerd stopped or restarting: the caller can retry; the daemon is not at fault
  const down = unavailable(err);
  if (down !== null) return { status: 503, code: 'docker_unavailable', message: down };
  const e = (err ?? {}) as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return { status, code: 'payload_too_large', message: 'request body is too large' };
    return { status, code: CODE_BY_STATUS[status] ?? 'bad_request', message: e.message || 'bad request' };
  }
  return { status: 500, code: 'internal', message: 'internal error; see the daemon log' };
}
