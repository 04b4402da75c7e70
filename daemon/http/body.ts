// Request bodies: JSON only, size-limited. Every parser failure is the client's (400, 413, 415),
// never a 500: koa-body lets some through without a status (a body that claims gzip but is not).
// koa-body (with formidable and its parsers) loads on the first request that carries a body: a
// daemon that only serves reads, as most do most of the time, does not keep it resident.
import type { Context, Middleware, Next } from 'koa';
import type { HttpMethodEnum } from 'koa-body';
import { InvalidInput } from '../core/errors.js';

const WITH_BODY = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A body the parser gave up on may still be arriving: the connection is closed after the answer.
 * Kept alive, its unread bytes would stall the next request the client sends on it (Node does not
 * drain a request a parser already started reading), or be read as one.
 */
function closeAfterAnswer(ctx: Context): void {
  ctx.set('Connection', 'close');
}

function hasBody(ctx: Context): boolean {
  return (ctx.request.length ?? 0) > 0 || ctx.get('transfer-encoding') !== '';
}

export function jsonBody(limit: string): Middleware {
  let loaded: Promise<Middleware> | null = null;
  const parserOf = () =>
    (loaded ??= import('koa-body').then(
      ({ koaBody }) => koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonLimit: limit, parsedMethods: WITH_BODY as HttpMethodEnum[] }) as Middleware,
    ));
  return async (ctx: Context, next: Next) => {
    if (!WITH_BODY.includes(ctx.method)) return next();
    if (hasBody(ctx) && !ctx.request.is('json')) {
      closeAfterAnswer(ctx);
      ctx.throw(415, 'request bodies must be JSON, sent with Content-Type: application/json');
    }
    const parser = await parserOf();
    try {
      await parser(ctx, async () => undefined);
    } catch (err) {
      closeAfterAnswer(ctx);
      const status = (err as { status?: number }).status;
      if (status === 413 || status === 415) throw err;
      throw new InvalidInput(`request body is not valid JSON: ${(err as Error).message}`, 'invalid_json');
    }
    await next();
  };
}

/** The exact request bytes, at most `limit` (413 past it): for the open routes, which skip the JSON parser. */
export async function rawBody(ctx: Context, limit: number): Promise<Buffer> {
  const tooLarge = () => {
    closeAfterAnswer(ctx);
    return Object.assign(new Error('request body is too large'), { status: 413 });
  };
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
