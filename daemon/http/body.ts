// Request bodies: JSON only, size-limited. Every parser failure is the client's (400, 413, 415),
// never a 500: koa-body lets some through without a status (a body that claims gzip but is not).
import type { Context, Middleware, Next } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { InvalidInput } from '../core/errors.js';

const WITH_BODY = [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE];

function hasBody(ctx: Context): boolean {
  return (ctx.request.length ?? 0) > 0 || ctx.get('transfer-encoding') !== '';
}

export function jsonBody(limit: string): Middleware {
  const parser = koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonLimit: limit, parsedMethods: WITH_BODY });
  return async (ctx: Context, next: Next) => {
    if (!(WITH_BODY as string[]).includes(ctx.method)) return next();
    if (hasBody(ctx) && !ctx.request.is('json')) {
      ctx.throw(415, 'request bodies must be JSON, sent with Content-Type: application/json');
    }
    try {
      await parser(ctx, async () => undefined);
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status === 413 || status === 415) throw err;
      throw new InvalidInput(`request body is not valid JSON: ${(err as Error).message}`, 'invalid_json');
    }
    await next();
  };
}
