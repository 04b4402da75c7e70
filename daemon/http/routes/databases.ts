// The spec's Databases endpoints except backups and imports: tables, rows, queries, row edits,
// and PostgreSQL TLS. Values JSON cannot carry plainly travel in the tagged forms of
// daemon/databases/encoding.ts, both ways.
import type { Context } from 'koa';
import { z } from 'zod';
import { InvalidInput } from '../../core/errors.js';
import type { DbCell } from '../../../shared/types.js';
import { CURSOR_MAX_LENGTH, type Row } from '../../core/ports/database-adapter.js';
import { route } from '../route-table.js';
import { parse } from '../validate.js';

const table = z.string().min(1, 'must not be empty').max(1000);
// a row's values, as core's Row type (each value in the tagged forms of daemon/databases/encoding.ts)
const values = z.record(z.string().max(1000), z.custom<DbCell>()).refine((v) => Object.keys(v).length <= 1000, 'has too many fields') satisfies z.ZodType<Row>;
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

export const databaseRoutes = {
  ...route('database.tables', {
    handler: ({ ctx, access, params }, { core }) => core.databases.tables(access, params.serviceId, scope(parse(tablesQuery, query(ctx)))),
  }),
  ...route('database.rows', {
    handler: ({ ctx, access, params }, { core }) => {
      const q = parse(rowsQuery, query(ctx));
      return core.databases.rows(access, params.serviceId, { table: q.table, limit: q.limit, offset: q.offset, ...(q.after === undefined ? {} : { after: q.after }), ...scope(q) });
    },
  }),
  ...route('database.query', { body: queryBody, handler: ({ access, params, body }, { core }) => core.databases.query(access, params.serviceId, body.sql, scope(body)) }),
  ...route('database.rows.insert', {
    body: insertBody,
    handler: async ({ access, params, body: b }, { core }) => ({ ok: true, ...(await core.databases.insert(access, params.serviceId, b.table, b.values, scope(b))) }),
  }),
  ...route('database.rows.update', {
    body: updateBody,
    handler: async ({ access, params, body: b }, { core }) => {
      await core.databases.update(access, params.serviceId, b.table, b.primaryKey, b.values, scope(b));
      return { ok: true };
    },
  }),
  ...route('database.rows.delete', {
    body: deleteBody,
    handler: async ({ access, params, body: b }, { core }) => {
      await core.databases.delete(access, params.serviceId, b.table, b.primaryKey, scope(b));
      return { ok: true };
    },
  }),
  ...route('database.tls', { handler: async ({ access, params }, { core }) => ({ tls: await core.databases.tls(access, params.serviceId) }) }),
  ...route('database.tls.ca', {
    handler: async ({ ctx, access, params }, { core }) => {
      const pem = await core.databases.caPem(access, params.serviceId);
      ctx.set('Content-Type', 'application/x-pem-file');
      ctx.set('Content-Disposition', 'attachment; filename="berth-ca.crt"');
      return pem;
    },
  }),
};
