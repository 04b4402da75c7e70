// Request bodies: JSON only, size-limited. Every parser failure is the client's (400, 413, 415),
// never a 500: koa-body lets some through without a status (a body that claims gzip but is not).
// koa-body (with formidable and its parsers) loads on the first request that carries a body: a
// daemon that only serves reads, as most do most of the time, does not keep it resident.
import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import type { HttpMethodEnum } from 'koa-body';
import { InvalidInput } from '../core/errors.js';

const WITH_BODY = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A body the parser gave up on may still be arriving: the connection is closed after the answer.
 * Kept alive, its unread bytes would stall the next request the client sends on it (Node does not
 * drain a request a parser already started reading), or be read as one.
 *
 * Before the answer goes, what is left of the body is read and dropped, up to DRAIN_BYTES or
 * DRAIN_MS: a socket closed with unread bytes is reset by the kernel, and the reset can overtake the
 * answer, so the client (or Caddy in front, which reports it as 502) never sees the 413. A client
 * that sends more than that, or slower, is cut off as before.
 */
const DRAIN_BYTES = 8 * 1024 * 1024;
const DRAIN_MS = 2000;

async function refuse(ctx: Context, err: Error): Promise<never> {
  ctx.set('Connection', 'close');
  await drain(ctx.req);
  throw err;
}

function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  req.unpipe();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('error', done).off('close', done);
      req.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    req.on('data', onData).once('end', done).once('error', done).once('close', done);
    req.resume();
  });
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
      await refuse(ctx, Object.assign(new Error('request bodies must be JSON, sent with Content-Type: application/json'), { status: 415, expose: true }));
    }
    const parser = await parserOf();
    try {
      await parser(ctx, async () => undefined);
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status === 413 || status === 415) await refuse(ctx, err as Error);
      await refuse(ctx, new InvalidInput(`request body is not valid JSON: ${(err as Error).message}`, 'invalid_json'));
    }
    await next();
  };
}

/** The exact request bytes, at most `limit` (413 past it): for the open routes, which skip the JSON parser. */
export async function rawBody(ctx: Context, limit: number): Promise<Buffer> {
  const tooLarge = () => refuse(ctx, Object.assign(new Error('request body is too large'), { status: 413 }));
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) return tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  // not destroyed on the way out: a destroyed request takes its socket, and the 413, with it
  for await (const chunk of ctx.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) return tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
