// PostgreSQL (and TimescaleDB) through `pg`. One Client per adapter, with its own type parsers
// (the `types` option, never the global pg.types) so int8/numeric keep their precision and
// instants come out as UTC. User statements run through the extended protocol, which the server
// refuses to run with more than one statement in it, inside a capped portal (CappedQuery) so a
// huge result never sits in memory: rows past the row cap are only counted, and the socket's byte
// budget (answer-budget.ts) ends the connection once an answer reaches its byte cap, which also
// stops the statement on the server. Row pages read through the same portal. Identifiers are
// checked against the catalogue, then quoted.
import pg from 'pg';
import type { CustomTypesConfig, FieldDef, QueryConfig } from 'pg';
import { BerthError, DatabaseUnavailable, EngineRefused, InvalidInput, NotFound } from '../../core/errors.js';
import type { Column, Connection, DatabaseAdapter, PageRequest, QueryLimits, QueryResult, RowsPage, TableEntry } from '../../core/database-adapter.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../cursor.js';
import { SocketBudget } from '../answer-budget.js';
import { bigintCell, bytesCell, dateCell, decimalCell, fromCell, tagOf, toCell, type Cell, type Row } from '../encoding.js';
import { pickColumns, primaryKeyMatch } from '../sql-columns.js';

/** Below this many estimated rows a table is counted exactly. */
const EXACT_COUNT_BELOW = 100_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** How long a row page may take before the client gives up on the server (plus BACKSTOP_MS). */
const PAGE_TIMEOUT_MS = 30_000;
/** After the row cap, a result is still counted (not kept) up to this many rows, for rowCount. */
const COUNT_PAST_CAP = 1_000_000;
const DRAIN_BATCH = 10_000;
/** Extra time the client waits past the statement timeout before it gives up on the server. */
const BACKSTOP_MS = 10_000;
const HIDDEN_SCHEMAS = ['pg_catalog', 'information_schema', 'timescaledb_information', 'timescaledb_experimental'];

// ---- type parsing -------------------------------------------------------------------------------

/** `2026-11-22 10:00:00.123456+05:30` (offset absent for timestamp without time zone: UTC). */
const TIMESTAMP = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/;

function parseTimestamp(text: string): Cell {
  const m = TIMESTAMP.exec(text);
  if (!m) return text; // infinity, -infinity, BC dates: kept as the server wrote them
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), Number(((m[7] ?? '') + '000').slice(0, 3)));
  if (m[8]) {
    const offset = (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0)) * 1000;
    d.setTime(d.getTime() - (m[8] === '-' ? -offset : offset));
  }
  return Number.isNaN(d.getTime()) ? text : dateCell(d);
}

/** A text-format array literal (`{1,NULL,"a,b"}`, nested, with an optional `[1:2]=` prefix). */
function parseArray(text: string, element: (s: string) => Cell): Cell {
  let i = text.startsWith('[') ? text.indexOf('=') + 1 : 0;
  const list = (): Cell[] => {
    const out: Cell[] = [];
    i++; // '{'
    while (i < text.length && text[i] !== '}') {
      if (text[i] === '{') out.push(list());
      else if (text[i] === '"') {
        let s = '';
        for (i++; text[i] !== '"'; i++) s += text[i] === '\\' ? text[++i] : text[i];
        i++;
        out.push(element(s));
      } else {
        const end = text.slice(i).search(/[,}]/);
        const raw = text.slice(i, i + end);
        i += end;
        out.push(raw.toUpperCase() === 'NULL' ? null : element(raw));
      }
      if (text[i] === ',') i++;
    }
    i++; // '}'
    return out;
  };
  return list();
}

const asDecimal = (s: string): Cell => (/^-?\d/.test(s) ? decimalCell(s) : s); // NaN, Infinity stay text
const asJson = (s: string): Cell => JSON.parse(s) as Cell;
const asText = (s: string): Cell => s;
const asBytes = (s: string): Cell => bytesCell(pg.types.getTypeParser(17)(s) as Buffer);

const PARSERS: Record<number, (text: string) => Cell> = {
  20: bigintCell, // int8
  1700: asDecimal, // numeric
  17: asBytes, // bytea
  1114: parseTimestamp, // timestamp (without time zone: read as UTC)
  1184: parseTimestamp, // timestamptz
  1082: asText, // date: 'YYYY-MM-DD'
  1186: asText, // interval: as the server writes it
  114: asJson, // json
  3802: asJson, // jsonb
};
const ARRAY_OF: Record<number, number> = { 1016: 20, 1231: 1700, 1001: 17, 1115: 1114, 1185: 1184, 1182: 1082, 1187: 1186, 199: 114, 3807: 3802 };

function getTypeParser(oid: number): (text: string) => Cell {
  const own = PARSERS[oid];
  if (own) return own;
  const element = ARRAY_OF[oid];
  if (element !== undefined) return (s) => parseArray(s, PARSERS[element]!);
  const builtin = pg.types.getTypeParser(oid, 'text');
  return (s) => toCell(builtin(s));
}

const TYPES: CustomTypesConfig = { getTypeParser: getTypeParser as unknown as CustomTypesConfig['getTypeParser'] };

// ---- errors ---------------------------------------------------------------------------------------

const UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EAI_AGAIN', 'EPIPE']);

/** Engine errors become EngineRefused, connection trouble DatabaseUnavailable; others pass. */
function translate(err: unknown, timeoutMs?: number): unknown {
  if (err instanceof BerthError) return err;
  if (err instanceof pg.DatabaseError) {
    const code = err.code ?? '';
    if (code === '57014' && timeoutMs !== undefined) {
      return new EngineRefused(`the statement took longer than ${timeoutMs} ms and was cancelled`);
    }
    // 08 connection exceptions (but 08P01, a protocol violation such as `$1` without a value, is
    // the statement's fault), 28 auth, 3D000 unknown database, 57P0x shutdown/starting, 53300 too many connections
    if ((/^(08|28)/.test(code) && code !== '08P01') || ['3D000', '57P01', '57P02', '57P03', '53300'].includes(code)) {
      return new DatabaseUnavailable(`postgres refused the connection: ${err.message}`);
    }
    return new EngineRefused(err.detail ? `${err.message} (${err.detail})` : err.message);
  }
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (err instanceof Error && ((code && UNREACHABLE.has(code)) || /Connection terminated|timeout expired|not queryable|was closed/.test(err.message))) {
    return new DatabaseUnavailable(`postgres is unreachable: ${err.message}`);
  }
  return err;
}

// ---- capped user statements ------------------------------------------------------------------------

interface ProtocolConnection {
  close(msg: { type: 'P' | 'S'; name: string }): void;
  sync(): void;
}
interface QueryInternals {
  handleDataRow(msg: unknown): void;
  handlePortalSuspended(con: ProtocolConnection): void;
  handleCommandComplete(msg: unknown, con: ProtocolConnection): void;
  handleEmptyQuery(con: ProtocolConnection): void;
  handleError(err: Error, con: ProtocolConnection): void;
  rows: number;
}
interface CappedResult {
  fields: FieldDef[];
  rows: Cell[][];
  rowCount: number | null;
}

/**
 * One user statement through the extended protocol, executed with a row limit (maxRows + 1): the
 * first `keep` rows are parsed and kept, the rest only counted (batch by batch, up to
 * COUNT_PAST_CAP or half the time budget), then the portal is closed. pg's Query does the
 * protocol; this subclass overrides the hooks pg-cursor also relies on.
 */
class CappedQuery extends pg.Query {
  seen = 0;
  private synced = false;
  private answered = false;
  private readonly base: QueryInternals;

  constructor(
    text: string,
    values: unknown[],
    private readonly keep: number,
    private readonly countUntil: number,
    private readonly budget: SocketBudget,
    callback: (err: Error | undefined, res: CappedResult) => void,
  ) {
    const once = (err: Error | undefined, res: CappedResult) => {
      if (this.answered) return;
      this.answered = true;
      callback(err, res);
    };
    const config = { text, values, rowMode: 'array', rows: keep + 1, queryMode: 'extended', types: TYPES };
    super(config as QueryConfig, once as never);
    this.base = pg.Query.prototype as unknown as QueryInternals;
  }

  handleDataRow(msg: unknown): void {
    this.seen++;
    if (this.seen <= this.keep) this.base.handleDataRow.call(this, msg);
  }

  handlePortalSuspended(con: ProtocolConnection): void {
    if (this.seen >= COUNT_PAST_CAP || Date.now() >= this.countUntil) {
      this.synced = true;
      con.close({ type: 'P', name: '' });
      con.sync();
      return;
    }
    (this as unknown as QueryInternals).rows = DRAIN_BATCH;
    this.base.handlePortalSuspended.call(this, con);
  }

  handleCommandComplete(msg: unknown, con: ProtocolConnection): void {
    this.synced = true; // the base class syncs after completion when `rows` is set
    this.base.handleCommandComplete.call(this, msg, con);
  }

  handleEmptyQuery(con: ProtocolConnection): void {
    this.synced = true;
    this.base.handleEmptyQuery.call(this, con);
  }

  handleError(err: Error, con: ProtocolConnection): void {
    if (this.budget.exceeded) {
      // The byte budget cut the connection: the rows complete before the cut are the answer.
      this.synced = true;
      const self = this as unknown as { callback: (err: Error | undefined, res: CappedResult) => void; _result: CappedResult };
      self.callback(undefined, self._result);
      return;
    }
    // With a row limit pg does not pipeline Sync, and after an error the server waits for one.
    if (!this.synced && err instanceof pg.DatabaseError) {
      this.synced = true;
      con.sync();
    }
    this.base.handleError.call(this, err, con);
  }
}

// ---- the adapter -------------------------------------------------------------------------------------

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
  const socket = (client as unknown as { connection: { stream: import('node:net').Socket } }).connection.stream;
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
    const primaryKey = rows.filter((r) => r.pk !== null).sort((a, b) => a.pk! - b.pk!).map((r) => r.name);
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
    const body = given.length
      ? `(${given.map(([c]) => ident(c.name)).join(', ')}) values (${params.map((_, i) => `$${i + 1}`).join(', ')})`
      : 'default values';
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
