// PostgreSQL (and TimescaleDB) through `pg`. One Client per adapter, with its own type parsers
// (the `types` option, never the global pg.types) so int8/numeric keep their precision and
// instants come out as UTC. User statements run through the extended protocol, which the server
// refuses to run with more than one statement in it, inside a capped portal (CappedQuery) so a
// huge result never sits in memory: rows past the row cap are only counted, and the socket's byte
// budget (answer-budget.ts) ends the connection once an answer reaches its byte cap, which also
// stops the statement on the server. Row pages read through the same portal. Identifiers are
// checked against the catalogue, then quoted.
import pg from 'pg';
import type { Socket } from 'node:net';
import { BerthError, DatabaseUnavailable, InvalidInput, NotFound } from '../../core/errors.js';
import type { Column, Connection, DatabaseAdapter, PageRequest, QueryLimits, QueryResult, RowsPage, TableEntry } from '../../core/ports/database-adapter.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../cursor.js';
import { SocketBudget } from '../answer-budget.js';
import { fromCell, tagOf, type Cell, type Row } from '../encoding.js';
import { pickColumns, primaryKeyMatch } from '../sql-columns.js';
import { CappedQuery, type CappedResult } from './capped-query.js';
import { translate } from './errors.js';
import { TYPES } from './types.js';

/** Below this many estimated rows a table is counted exactly. */
const EXACT_COUNT_BELOW = 100_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** How long a row page may take before the client gives up on the server (plus BACKSTOP_MS). */
const PAGE_TIMEOUT_MS = 30_000;
/** Extra time the client waits past the statement timeout before it gives up on the server. */
const BACKSTOP_MS = 10_000;
const HIDDEN_SCHEMAS = ['pg_catalog', 'information_schema', 'timescaledb_information', 'timescaledb_experimental'];

interface PgTable {
  oid: number;
  schema: string;
  name: string;
  estimate: number;
}
interface PgColumn extends Column {
  json: boolean;
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const qualified = (t: PgTable): string => `${ident(t.schema)}.${ident(t.name)}`;

/** Array-mode values as a row; fromEntries defines own properties (a column may be called __proto__); first of a name wins. */
function rowOf(names: string[], values: Cell[]): Row {
  return Object.fromEntries(names.flatMap((n, i) => (names.indexOf(n) === i ? [[n, values[i] ?? null]] : []))) as Row;
}

export async function openPostgres(conn: Connection): Promise<DatabaseAdapter> {
  const client = new pg.Client({
    host: conn.host,
    port: conn.port,
    user: conn.user,
    password: conn.password,
    database: conn.database,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'berth',
    types: TYPES,
    // Fixed output formats, whatever the server's defaults: the parsers above depend on them.
    options: '-c TimeZone=UTC -c DateStyle=ISO,MDY -c IntervalStyle=postgres -c bytea_output=hex',
  });
  // A dead socket while idle is reported here; without a listener it would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    const mapped = translate(err);
    throw mapped instanceof BerthError ? mapped : new DatabaseUnavailable(`postgres is unreachable: ${(err as Error).message}`);
  }
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  return new PostgresAdapter(client, new SocketBudget(socket));
}

class PostgresAdapter implements DatabaseAdapter {
  constructor(
    private readonly client: pg.Client,
    private readonly budget: SocketBudget,
  ) {}

  private async run(text: string, values: unknown[] = []): Promise<pg.QueryResult<Row>> {
    try {
      return await this.client.query<Row>({ text, values });
    } catch (err) {
      throw translate(err);
    }
  }

  private async tables(id?: string): Promise<PgTable[]> {
    const res = await this.run(
      `select c.oid::int4 as oid, n.nspname as schema, c.relname as name, c.reltuples::float8 as estimate
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p')
          and n.nspname <> all($1::text[]) and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp\\_%'
          and n.nspname not like '\\_timescaledb\\_%'
          and ($2::text is null or n.nspname || '.' || c.relname = $2)
        order by n.nspname, c.relname`,
      [HIDDEN_SCHEMAS, id ?? null],
    );
    return res.rows as unknown as PgTable[];
  }

  private async resolve(id: string): Promise<PgTable> {
    if (typeof id !== 'string' || id === '') throw new InvalidInput('table must be a table id such as "public.users"');
    const [table] = await this.tables(id);
    if (!table) throw new NotFound(`no table ${JSON.stringify(id)}`);
    return table;
  }

  /** Columns in table order; `primaryKey` in the key's own column order. */
  private async columns(t: PgTable): Promise<{ columns: PgColumn[]; primaryKey: string[] }> {
    const res = await this.run(
      `select a.attname as name, ty.typname as type, ty.typname in ('json', 'jsonb') as json,
              array_position(i.indkey::int2[], a.attnum) as pk
         from pg_attribute a join pg_type ty on ty.oid = a.atttypid
         left join pg_index i on i.indrelid = a.attrelid and i.indisprimary
        where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped
        order by a.attnum`,
      [t.oid],
    );
    const rows = res.rows as unknown as { name: string; type: string; json: boolean; pk: number | null }[];
    const columns = rows.map((r) => ({ name: r.name, type: r.type, primary: r.pk !== null, json: r.json }));
    const primaryKey = rows
      .filter((r) => r.pk !== null)
      .sort((a, b) => a.pk! - b.pk!)
      .map((r) => r.name);
    return { columns, primaryKey };
  }

  /** Exact count when the estimate is small or unknown (-1: never analysed), else the estimate. */
  private async size(t: PgTable): Promise<{ count: number; estimated: boolean }> {
    if (t.estimate >= EXACT_COUNT_BELOW) return { count: Math.round(t.estimate), estimated: true };
    const res = await this.run(`select count(*) as n from ${qualified(t)}`);
    return { count: Number(res.rows[0]!['n']), estimated: false };
  }

  async listTables(): Promise<TableEntry[]> {
    const out: TableEntry[] = [];
    for (const t of await this.tables()) {
      const { count, estimated } = await this.size(t);
      out.push({ id: `${t.schema}.${t.name}`, name: t.name, schema: t.schema, rowCount: count, rowCountEstimated: estimated });
    }
    return out;
  }

  async readRows(table: string, page: PageRequest, _scope: unknown, maxBytes: number): Promise<RowsPage> {
    const { limit, offset, after } = page;
    if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) {
      throw new InvalidInput('limit and offset must be non-negative integers');
    }
    const t = await this.resolve(table);
    const id = `${t.schema}.${t.name}`;
    const { columns, primaryKey } = await this.columns(t);
    const keys = primaryKey.map(ident);
    // The key's values travel in their text form, both ways: exact for every type (no instant
    // rounded to milliseconds), and the server parses a parameter as the column's own type.
    const params: unknown[] = [];
    let where = '';
    if (after !== null) {
      const { values } = decodeCursor(after, id, primaryKey);
      if (values.some((v) => typeof v !== 'string')) throw new InvalidCursor('malformed key value');
      params.push(...values);
      // A row-value comparison: the primary key's index serves it, whatever the depth.
      where = ` where (${keys.join(', ')}) > (${values.map((_, i) => `$${i + 1}`).join(', ')})`;
    }
    const { count, estimated } = await this.size(t); // before the rows: a cut ends the connection
    const order = keys.length ? ` order by ${keys.join(', ')}` : '';
    const keyText = keys.map((k, i) => `, ${k}::text as "berth_key_${i}"`).join('');
    params.push(limit + 1, offset);
    const text = `select *${keyText} from ${qualified(t)}${where}${order} limit $${params.length - 1} offset $${params.length}`;
    // One row past the page tells whether there is a next one.
    const { res, cut } = await this.capped(text, params, limit + 1, 0, maxBytes, PAGE_TIMEOUT_MS);
    const width = res.fields.length - keys.length;
    const names = res.fields.slice(0, width).map((f) => f.name);
    const more = res.rows.length > limit || cut;
    const kept = res.rows.slice(0, limit);
    const last = kept[kept.length - 1];
    return {
      table: id,
      columns: columns.map(({ name, type, primary }) => ({ name, type, primary })),
      rows: kept.map((values) => rowOf(names, values.slice(0, width))),
      limit,
      offset,
      total: count,
      totalEstimated: estimated,
      ...(cut ? { truncated: true } : {}),
      nextCursor: more && last && keys.length ? encodeCursor(id, { names: primaryKey, values: last.slice(width) }) : null,
    };
  }

  /**
   * One statement through CappedQuery under the byte budget: `keep` rows are kept, more are counted
   * until `countUntil`; `cut` says the byte cap ended it (the connection is then closed).
   */
  private async capped(text: string, values: unknown[], keep: number, countUntil: number, maxBytes: number, timeoutMs: number): Promise<{ res: CappedResult; seen: number; cut: boolean }> {
    let query: CappedQuery | undefined;
    let backstop: NodeJS.Timeout | undefined;
    let gaveUp = false;
    this.budget.begin(maxBytes);
    try {
      const res = await new Promise<CappedResult>((resolve, reject) => {
        query = new CappedQuery(text, values, keep, countUntil, this.budget, (err, r) => (err ? reject(err) : resolve(r)));
        // statement_timeout is the server's job; this is for a server that stopped answering.
        backstop = setTimeout(() => {
          gaveUp = true;
          void this.client.end().catch(() => undefined);
        }, timeoutMs + BACKSTOP_MS);
        this.client.query(query);
      });
      return { res, seen: query!.seen, cut: this.budget.exceeded };
    } catch (err) {
      if (gaveUp) throw new DatabaseUnavailable(`postgres did not answer within ${timeoutMs + BACKSTOP_MS} ms; the connection was closed`);
      throw translate(err, timeoutMs);
    } finally {
      this.budget.end();
      clearTimeout(backstop);
      // Keep the session transaction-less: a BEGIN left open by the statement is rolled back.
      if (!gaveUp && !this.budget.exceeded && this.client.getTransactionStatus() !== 'I') await this.run('rollback').catch(() => undefined);
    }
  }

  /** Every type's name by oid, for result columns. */
  private async loadTypeNames(): Promise<Map<number, string>> {
    const res = await this.run('select oid::int4 as oid, typname from pg_type');
    return new Map(res.rows.map((r) => [r['oid'] as number, r['typname'] as string]));
  }

  async query(statement: string, limits: QueryLimits): Promise<QueryResult> {
    const { timeoutMs, maxRows, maxBytes } = limits;
    await this.run(`select set_config('statement_timeout', $1, false)`, [String(Math.max(1, Math.floor(timeoutMs)))]);
    const typeNames = await this.loadTypeNames(); // before the statement: a cut at the byte cap closes the connection
    const { res, seen, cut } = await this.capped(statement, [], maxRows, Date.now() + timeoutMs / 2, maxBytes, timeoutMs);
    const columns: { name: string; type: string }[] = [];
    for (const f of res.fields) columns.push({ name: f.name, type: typeNames.get(f.dataTypeID) ?? String(f.dataTypeID) });
    const names = columns.map((c) => c.name);
    return {
      columns,
      rows: res.rows.map((values) => rowOf(names, values)),
      rowCount: res.fields.length ? seen : (res.rowCount ?? 0),
      truncated: seen > maxRows || cut,
    };
  }

  /** A cell as a parameter for this column: JSON columns take JSON text, instants go as ISO UTC. */
  private param(column: PgColumn, cell: Cell): unknown {
    if (column.json && cell !== null && !tagOf(cell)) return JSON.stringify(cell);
    const v = fromCell(cell);
    return v instanceof Date ? v.toISOString() : v;
  }

  private keyMatch(columns: PgColumn[], primaryKey: string[], key: Row, params: unknown[]): string {
    return primaryKeyMatch(columns, primaryKey, key, ident, (c, cell) => {
      params.push(this.param(c, cell));
      return `$${params.length}`;
    });
  }

  async insertRow(table: string, values: Row): Promise<Row> {
    const t = await this.resolve(table);
    const { columns, primaryKey } = await this.columns(t);
    const given = pickColumns(columns, values, 'values');
    const params = given.map(([c, cell]) => this.param(c, cell));
    const body = given.length ? `(${given.map(([c]) => ident(c.name)).join(', ')}) values (${params.map((_, i) => `$${i + 1}`).join(', ')})` : 'default values';
    const returning = primaryKey.length ? ` returning ${primaryKey.map(ident).join(', ')}` : '';
    const res = await this.run(`insert into ${qualified(t)} ${body}${returning}`, params);
    return primaryKey.length ? res.rows[0]! : {};
  }

  async updateRow(table: string, primaryKey: Row, values: Row): Promise<void> {
    const t = await this.resolve(table);
    const { columns, primaryKey: pk } = await this.columns(t);
    const given = pickColumns(columns, values, 'values');
    if (!given.length) throw new InvalidInput('values must name at least one column to update');
    const params: unknown[] = [];
    const set = given
      .map(([c, cell]) => {
        params.push(this.param(c, cell));
        return `${ident(c.name)} = $${params.length}`;
      })
      .join(', ');
    const where = this.keyMatch(columns, pk, primaryKey, params);
    const res = await this.run(`update ${qualified(t)} set ${set} where ${where}`, params);
    if (!res.rowCount) throw new NotFound('no row with that primary key');
  }

  async deleteRow(table: string, primaryKey: Row): Promise<void> {
    const t = await this.resolve(table);
    const { columns, primaryKey: pk } = await this.columns(t);
    const params: unknown[] = [];
    const where = this.keyMatch(columns, pk, primaryKey, params);
    const res = await this.run(`delete from ${qualified(t)} where ${where}`, params);
    if (!res.rowCount) throw new NotFound('no row with that primary key');
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
