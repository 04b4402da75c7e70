// The spec's Databases endpoints except backups and imports: tables, rows, queries, row edits,
// and PostgreSQL TLS. Values JSON cannot carry plainly travel in the tagged forms of
// daemon/databases/encoding.ts, both ways.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { InvalidInput } from '../../core/errors.js';
import { CURSOR_MAX_LENGTH, type Row } from '../../core/ports/database-adapter.js';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse } from '../validate.js';

const table = z.string().min(1, 'must not be empty').max(1000);
const values = z.record(z.string().max(1000), z.unknown()).refine((v) => Object.keys(v).length <= 1000, 'has too many fields');
/** The redis logical database, in a body or the query string. */
const database = z.coerce.number().int('must be an integer').min(0).max(1_000_000).optional();
const integer = (min: number) => z.coerce.number().int('must be an integer').min(min).optional();

const tablesQuery = z.object({ database });
/** A rows cursor (a page's nextCursor); what it holds is checked by the adapter (invalid_cursor). */
const after = z.string().min(1, 'must not be empty').max(CURSOR_MAX_LENGTH).optional();
const rowsQuery = z.object({ table, limit: integer(1), offset: integer(0), after, database });
const queryBody = z.object({ sql: z.string().min(1, 'must not be empty').max(100_000), database });
const insertBody = z.object({ table, values, database });
const updateBody = z.object({ table, primaryKey: values, values, database });
const deleteBody = z.object({ table, primaryKey: values, database });

/** A query-string value given twice arrives as an array: refuse it rather than pick one. */
function query(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.query)) {
    if (Array.isArray(v)) throw new InvalidInput(`${k} is given more than once`);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const scope = (input: { database?: number | undefined }) => (input.database === undefined ? {} : { database: input.database });

export function databaseRoutes(router: Router, { core }: AppServices): void {
  const base = '/api/services/:serviceId/database';

  router.get(`${base}/tables`, async (ctx) => {
    const q = parse(tablesQuery, query(ctx));
    ctx.body = await core.databases.tables(accessOf(ctx), ctx.params.serviceId!, scope(q));
  });

  router.get(`${base}/rows`, async (ctx) => {
    const q = parse(rowsQuery, query(ctx));
    ctx.body = await core.databases.rows(accessOf(ctx), ctx.params.serviceId!, { table: q.table, limit: q.limit, offset: q.offset, ...(q.after === undefined ? {} : { after: q.after }), ...scope(q) });
  });

  router.post(`${base}/query`, async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const b = parse(queryBody, ctx.request.body);
    ctx.body = await core.databases.query(access, ctx.params.serviceId!, b.sql, scope(b));
  });

  router.post(`${base}/rows`, async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const b = parse(insertBody, ctx.request.body);
    ctx.body = { ok: true, ...(await core.databases.insert(access, ctx.params.serviceId!, b.table, b.values as Row, scope(b))) };
  });

  router.patch(`${base}/rows`, async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const b = parse(updateBody, ctx.request.body);
    await core.databases.update(access, ctx.params.serviceId!, b.table, b.primaryKey as Row, b.values as Row, scope(b));
    ctx.body = { ok: true };
  });

  router.delete(`${base}/rows`, async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const b = parse(deleteBody, ctx.request.body);
    await core.databases.delete(access, ctx.params.serviceId!, b.table, b.primaryKey as Row, scope(b));
    ctx.body = { ok: true };
  });

  router.get(`${base}/tls`, async (ctx) => {
    ctx.body = { tls: await core.databases.tls(accessOf(ctx), ctx.params.serviceId!) };
  });

  router.get(`${base}/tls/ca`, async (ctx) => {
    const pem = await core.databases.caPem(accessOf(ctx), ctx.params.serviceId!);
    ctx.set('Content-Type', 'application/x-pem-file');
    ctx.set('Content-Disposition', 'attachment; filename="berth-ca.crt"');
    ctx.body = pem;
  });
}
