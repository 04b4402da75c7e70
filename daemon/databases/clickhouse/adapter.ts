// ClickHouse through @clickhouse/client over HTTP. A "table" is `<database>.<table>` of
// `conn.database`. Written for and checked against ClickHouse 18.16 (Debian's), which differs
// from what the client expects of current servers in ways that shape this file:
//   - no server-side query parameters ({name:Type} makes 18.16 answer "Unknown setting param_x"),
//     so values in WHERE/SET clauses are string literals escaped here (every byte outside
//     printable ASCII, and ' and \, as \xHH) and CAST to the column's type from system.columns;
//     identifiers are backtick-quoted after being found in system.tables/system.columns;
//   - its exception text ("Code: 62, e.displayText() = DB::Exception: ...") is not the format the
//     client parses, so errors are recognised here;
//   - JSON output prints Decimals as bare numbers, which JSON.parse would round: results are
//     parsed by a small parser that keeps numbers as written;
//   - JSONEachRow input wants Decimals as bare numbers too, so inserts go through a stringifier
//     that can emit them; DateTime values are sent as Unix seconds (time zone independent);
//   - no `mutations_sync`: after ALTER ... UPDATE/DELETE we wait for system.mutations to be done.
// DateTime values are printed in the column's or the server's time zone; they are read back as
// instants ({$date}) by converting from that zone.
import { createClient, ClickHouseError, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { DatabaseUnavailable, EngineRefused, InvalidInput, NotFound } from '../../core/errors.js';
import type { Column, Connection, DatabaseAdapter, QueryResult, RowsPage, TableEntry } from '../../core/database-adapter.js';
import { afterKeyCondition, decodeCursor, encodeCursor, InvalidCursor } from '../cursor.js';
import { bigintCell, dateCell, decimalCell, fromCell, type Cell, type Row } from '../encoding.js';

const MUTATION_WAIT_MS = 30_000;
/** Result columns holding the sorting key as text, for the cursor. */
const KEY_ALIAS = '__berth_cursor_';
/** Engines whose count() reads stored rows cheaply; MergeTree tables are counted from system.parts. */
const COUNTABLE_ENGINES = new Set(['Memory', 'Log', 'TinyLog', 'StripeLog']);
/** Statements that answer with rows (FORMAT JSON can be appended); anything else runs as a command. */
const READS = /^(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS)\b/i;

// ---------- quoting ----------

/** A ClickHouse string literal holding exactly these bytes. */
export function literal(value: string | Buffer): string {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  let out = "'";
  for (const b of bytes) {
    out += b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return out + "'";
}

/** A backtick-quoted identifier; call only with names found in the catalogue. */
export function ident(name: string): string {
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

// ---------- JSON with numbers kept as written ----------

class RawNumber {
  constructor(readonly text: string) {}
}

/** JSON.parse, except numbers stay RawNumber (their exact text) and keys cannot reach prototypes. */
export function parseJsonExact(text: string): unknown {
  let i = 0;
  const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
  const ws = () => { while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\t' || text[i] === '\r')) i++; };
  const expect = (c: string) => {
    ws();
    if (text[i] !== c) throw new Error(`bad JSON from ClickHouse at ${i}: expected ${c}`);
    i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws();
        const k = str();
        expect(':');
        Object.defineProperty(o, k, { value: value(), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') { i++; continue; }
        expect('}');
        return o;
      }
    }
    if (c === '[') {
      i++;
      const a: unknown[] = [];
      ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') { i++; continue; }
        expect(']');
        return a;
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) throw new Error(`bad JSON from ClickHouse at ${i}`);
    i = NUMBER.lastIndex;
    return new RawNumber(m[0]);
  };
  return value();
}

/** JSON.stringify for one insert row, emitting RawNumber values bare (Decimals). */
function stringifyRow(row: unknown): string {
  const json = (v: unknown): string =>
    v instanceof RawNumber ? v.text : typeof v === 'bigint' ? JSON.stringify(v.toString()) : JSON.stringify(v) ?? 'null';
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return json(row);
  return '{' + Object.entries(row).map(([k, v]) => `${JSON.stringify(k)}:${json(v)}`).join(',') + '}';
}

// ---------- types and values ----------

/** The type inside Nullable(...) / LowCardinality(...). */
const baseType = (type: string): string => {
  const m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(type);
  return m ? baseType(m[1]!) : type;
};
const isBigInt = (t: string) => /^U?Int(64|128|256)$/.test(t);
const isDecimal = (t: string) => /^Decimal/.test(t);
const isDateTime = (t: string) => /^DateTime(\(.*\))?$/.test(t);

const offsetFormats = new Map<string, Intl.DateTimeFormat | null>();
/** The UTC instant of a wall-clock time "YYYY-MM-DD hh:mm:ss" in a time zone. */
export function wallToInstant(wall: string, zone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(wall);
  if (!m) return null;
  if (m[1] === '0000') return new Date(0); // how ClickHouse prints the zero DateTime
  const asUtc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  if (!offsetFormats.has(zone)) {
    let f: Intl.DateTimeFormat | null = null;
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    } catch {
      f = null; // a zone Node does not know: read the wall time as UTC
    }
    offsetFormats.set(zone, f);
  }
  const f = offsetFormats.get(zone);
  if (!f) return new Date(asUtc);
  const offset = (utc: number) => {
    const p = Object.fromEntries(f.formatToParts(new Date(utc)).map((x) => [x.type, x.value]));
    return Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!) - utc;
  };
  const guess = asUtc - offset(asUtc);
  return new Date(asUtc - offset(guess));
}

/** A value of a JSON result as a cell, given its ClickHouse type. */
function chCell(type: string, v: unknown, serverZone: string): Cell {
  if (v === null || v === undefined) return null;
  const t = baseType(type);
  if (v instanceof RawNumber) {
    if (isDecimal(t)) return decimalCell(v.text);
    return /^-?\d+$/.test(v.text) ? bigintCell(v.text) : Number(v.text);
  }
  if (typeof v === 'string') {
    if (isBigInt(t) && /^-?\d+$/.test(v)) return bigintCell(v);
    if (isDecimal(t)) return decimalCell(v);
    if (isDateTime(t)) {
      const zone = /^DateTime\('([^']+)'\)$/.exec(t)?.[1] ?? serverZone;
      const d = wallToInstant(v, zone);
      return d ? dateCell(d) : v;
    }
    return v;
  }
  if (Array.isArray(v)) {
    const inner = /^Array\((.*)\)$/.exec(t)?.[1] ?? '';
    return v.map((x) => chCell(inner, x, serverZone));
  }
  if (typeof v === 'object') {
    const out: Record<string, Cell> = {};
    for (const [k, x] of Object.entries(v)) out[k] = chCell('', x, serverZone);
    return out;
  }
  return v as Cell;
}

interface ColumnInfo { name: string; type: string; primary: boolean }

/** A written cell as a JSONEachRow value for a column of this type. */
function insertValue(col: ColumnInfo, cell: Cell): unknown {
  const v = fromCell(cell);
  const t = baseType(col.type);
  if (v === null) return null;
  if (isDecimal(t) && (typeof v === 'string' || typeof v === 'number')) {
    const text = String(v);
    if (!/^-?\d+(\.\d+)?$/.test(text)) throw new InvalidInput(`${col.name}: ${JSON.stringify(text)} is not a decimal`);
    return new RawNumber(text);
  }
  if (v instanceof Date) return t === 'Date' ? v.toISOString().slice(0, 10) : Math.floor(v.getTime() / 1000);
  if (Buffer.isBuffer(v)) {
    // JSON strings reach ClickHouse as UTF-8: bytes that are not UTF-8 cannot travel this way.
    if (!Buffer.from(v.toString('utf8'), 'utf8').equals(v)) throw new InvalidInput(`${col.name}: binary values cannot be inserted as a row; use a query with unhex()`);
    return v.toString('utf8');
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

/** A written cell as an SQL expression of this column's type (for WHERE and UPDATE). */
function sqlValue(col: ColumnInfo, cell: Cell): string {
  const v = fromCell(cell);
  const t = baseType(col.type);
  if (v === null) return 'NULL';
  if (v instanceof Date) {
    const secs = Math.floor(v.getTime() / 1000);
    return t === 'Date' ? `toDate(toDateTime(${secs}))` : `CAST(toDateTime(${secs}) AS ${col.type})`;
  }
  if (typeof v === 'boolean') return `CAST(${v ? 1 : 0} AS ${col.type})`;
  if (typeof v === 'number' && !Number.isFinite(v)) throw new InvalidInput(`${col.name}: not a finite number`);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string') return `CAST(${literal(String(v))} AS ${col.type})`;
  if (Buffer.isBuffer(v)) return `CAST(${literal(v)} AS ${col.type})`;
  throw new InvalidInput(`${col.name}: arrays and objects can only be written with an insert or a query`);
}

// ---------- errors ----------

/** ClickHouse's message without its code prefix and stack: both the 18.x and the current formats. */
export function serverMessage(err: unknown): { code: number; message: string } | null {
  if (err instanceof ClickHouseError) return { code: Number(err.code), message: err.message.trim() };
  const text = err instanceof Error ? err.message : '';
  const m = /^Code: (\d+)[,.] (?:e\.displayText\(\) = )?(?:DB::Exception: )?([\s\S]*?)(?:, e\.what\(\) = [\s\S]*|\s*Stack trace:[\s\S]*)?$/.exec(text.trim());
  return m ? { code: Number(m[1]), message: m[2]!.trim() } : null;
}

/** Unknown user, wrong password, authentication failed, database does not exist. */
const UNAVAILABLE_CODES = new Set([192, 193, 194, 516]);

function toError(err: unknown): Error {
  if (err instanceof InvalidInput || err instanceof NotFound || err instanceof EngineRefused || err instanceof DatabaseUnavailable) return err;
  const server = serverMessage(err);
  if (server) {
    return UNAVAILABLE_CODES.has(server.code) ? new DatabaseUnavailable(`clickhouse: ${server.message}`) : new EngineRefused(server.message);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new DatabaseUnavailable(`clickhouse is unreachable: ${message}`);
}

// ---------- the adapter ----------

export async function openClickhouse(conn: Connection): Promise<DatabaseAdapter> {
  const host = conn.host.includes(':') ? `[${conn.host}]` : conn.host;
  const client: ClickHouseClient = createClient({
    url: `http://${host}:${conn.port}`,
    username: conn.user || 'default',
    password: conn.password,
    database: conn.database || 'default',
    request_timeout: 300_000,
    // Errors reach the caller as typed errors; the client would also print each one.
    log: { level: ClickHouseLogLevel.OFF },
    json: { parse: JSON.parse, stringify: stringifyRow },
  });
  const database = conn.database || 'default';

  type Selected = { meta: { name: string; type: string }[]; data: Record<string, unknown>[]; cut: boolean };
  /**
   * A SELECT's JSON answer, read as a stream of at most `maxBytes`: past it the request is aborted
   * (the server stops at its next write) and the answer is `cut` with no rows (a JSON document
   * cut short cannot be read).
   */
  async function select(sql: string, settings: Record<string, string | number> = {}, signal?: AbortSignal, maxBytes = Infinity): Promise<Selected> {
    const stop = new AbortController();
    const { stream } = await client.exec({
      query: `${sql}\nFORMAT JSON`,
      clickhouse_settings: settings,
      abort_signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          stop.abort();
          (stream as { destroy?: () => void }).destroy?.();
          return { meta: [], data: [], cut: true };
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (stop.signal.aborted) return { meta: [], data: [], cut: true };
      throw err;
    }
    return { ...(parseJsonExact(Buffer.concat(chunks).toString('utf8')) as Omit<Selected, 'cut'>), cut: false };
  }

  let serverZone = 'UTC';
  try {
    const { data } = await select('SELECT timezone() AS tz');
    serverZone = String(data[0]?.tz ?? 'UTC');
  } catch (err) {
    await client.close();
    const e = toError(err);
    throw e instanceof DatabaseUnavailable ? e : new DatabaseUnavailable(`clickhouse: ${e.message}`);
  }

  async function run<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      throw toError(err);
    }
  }

  /** The table's quoted name and columns, from the catalogue; NotFound when it has no such table. */
  async function catalogue(id: string): Promise<{ db: string; name: string; from: string; columns: ColumnInfo[]; sortKey: string[] }> {
    const dot = id.indexOf('.');
    const db = dot > 0 ? id.slice(0, dot) : '';
    const name = dot > 0 ? id.slice(dot + 1) : '';
    if (db !== database || !name) throw new NotFound(`no table ${JSON.stringify(id)} in ${database}`);
    const tables = await select(`SELECT * FROM system.tables WHERE database = ${literal(db)} AND name = ${literal(name)}`);
    const table = tables.data[0];
    if (!table) throw new NotFound(`no table ${JSON.stringify(id)}`);
    const cols = await select(`SELECT * FROM system.columns WHERE database = ${literal(db)} AND table = ${literal(name)}`);
    // is_in_primary_key exists since 18.x; older servers only name the key in system.tables.
    const keyText = String(table.primary_key ?? table.sorting_key ?? '');
    const keyNames = keyText.split(',').map((s) => s.trim().replace(/^`(.*)`$/, '$1'));
    const columns = cols.data.map((c) => {
      const colName = String(c.name);
      const flag = c.is_in_primary_key;
      const primary = flag === undefined ? keyNames.includes(colName) : flag instanceof RawNumber ? flag.text === '1' : Boolean(flag);
      return { name: colName, type: String(c.type), primary };
    });
    // The sorting key pages rows when it is plain columns (`ORDER BY (a, b)`); an expression
    // (`ORDER BY toDate(ts)`), a table without one (Log, Memory, tuple()) leaves no key to page by.
    const sortText = String(table.sorting_key ?? table.primary_key ?? '');
    const sortNames = sortText.trim() === '' ? [] : sortText.split(',').map((s) => s.trim().replace(/^`(.*)`$/, '$1'));
    const sortKey = sortNames.every((n) => columns.some((c) => c.name === n)) ? sortNames : [];
    return { db, name, from: `${ident(db)}.${ident(name)}`, columns, sortKey };
  }

  function columnOf(columns: ColumnInfo[], name: string): ColumnInfo {
    const col = columns.find((c) => c.name === name);
    if (!col) throw new InvalidInput(`no column ${JSON.stringify(name)}`);
    return col;
  }

  function whereOf(columns: ColumnInfo[], primaryKey: Row): string {
    const keys = Object.keys(primaryKey);
    if (keys.length === 0) throw new InvalidInput('the primary key is empty');
    return keys.map((k) => {
      const col = columnOf(columns, k);
      const value = primaryKey[k]!;
      return value === null ? `isNull(${ident(col.name)})` : `${ident(col.name)} = ${sqlValue(col, value)}`;
    }).join(' AND ');
  }

  async function countWhere(from: string, where: string): Promise<number> {
    const { data } = await select(`SELECT count() AS n FROM ${from} WHERE ${where}`);
    return Number((data[0]?.n as RawNumber | string | undefined)?.toString() ?? 0);
  }

  /** ALTER ... UPDATE/DELETE only schedule a mutation; wait until it is applied so a read sees it. */
  async function mutate(db: string, name: string, sql: string): Promise<void> {
    await client.command({ query: sql });
    const deadline = Date.now() + MUTATION_WAIT_MS;
    for (;;) {
      const { data } = await select(`SELECT count() AS n FROM system.mutations WHERE database = ${literal(db)} AND table = ${literal(name)} AND is_done = 0`);
      if (String(data[0]?.n) === '0') return;
      if (Date.now() > deadline) throw new EngineRefused(`the change was accepted but not applied after ${MUTATION_WAIT_MS / 1000} s (see system.mutations)`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return {
    listTables: () => run(async () => {
      const tables = await select(`SELECT name, engine FROM system.tables WHERE database = ${literal(database)} ORDER BY name`);
      const parts = await select(`SELECT table, sum(rows) AS rows FROM system.parts WHERE database = ${literal(database)} AND active GROUP BY table`);
      const partRows = new Map(parts.data.map((p) => [String(p.table), Number(String(p.rows))]));
      const entries: TableEntry[] = [];
      for (const t of tables.data) {
        const name = String(t.name);
        const engine = String(t.engine);
        let rowCount = 0;
        let rowCountEstimated = false;
        if (engine.endsWith('MergeTree')) rowCount = partRows.get(name) ?? 0;
        else if (COUNTABLE_ENGINES.has(engine)) rowCount = await countWhere(`${ident(database)}.${ident(name)}`, '1');
        else rowCountEstimated = true; // views, Kafka, Distributed...: counting would run or consume them
        entries.push({ id: `${database}.${name}`, name, schema: database, rowCount, rowCountEstimated });
      }
      return entries;
    }),

    readRows: (table, { limit, offset, after }, _scope, maxBytes) => run(async () => {
      const { from, columns, sortKey } = await catalogue(table);
      if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(offset) || limit < 0 || offset < 0) throw new InvalidInput('limit and offset must be non-negative integers');
      const keyCols = sortKey.map((k) => columnOf(columns, k));
      const keys = keyCols.map((c) => ident(c.name));
      // Pages follow the sorting key when there is one; tables without one keep the primary columns' order.
      const orderKeys = keys.length ? keys : columns.filter((c) => c.primary).map((c) => ident(c.name));
      const order = orderKeys.length ? ` ORDER BY ${orderKeys.join(', ')}` : '';
      // A sorting key need not be unique: the cursor holds the last key and how many rows with
      // exactly that key were answered; the next page starts at that key and skips them.
      let where = '';
      let skip = offset;
      let from0: { values: Cell[]; ties: number } | null = null;
      if (after !== null) {
        from0 = decodeCursor(after, table, sortKey);
        if (from0.values.some((v) => typeof v !== 'string')) throw new InvalidCursor('malformed key value');
        where = ` WHERE ${afterKeyCondition(keys, (i) => `CAST(${literal(from0!.values[i] as string)} AS ${keyCols[i]!.type})`, '>=')}`;
        skip += from0.ties;
      }
      // The key again as text, for the cursor (exact, and read back by CAST to the column's type).
      const keyText = keys.map((k, i) => `, toString(${k}) AS ${ident(`${KEY_ALIAS}${i}`)}`).join('');
      const result = limit > 0 ? await select(`SELECT *${keyText} FROM ${from}${where}${order} LIMIT ${skip}, ${limit + 1}`, {}, undefined, maxBytes) : { meta: [], data: [], cut: false };
      const types = new Map(result.meta.map((m) => [m.name, m.type]));
      const kept = result.data.slice(0, limit);
      const keyOf = (r: Record<string, unknown>) => keys.map((_, i) => String(r[`${KEY_ALIAS}${i}`]));
      const rows = kept.map((r) => {
        const row: Row = {};
        for (const [k, v] of Object.entries(r)) if (!k.startsWith(KEY_ALIAS)) row[k] = chCell(types.get(k) ?? '', v, serverZone);
        return row;
      });
      let nextCursor: string | null = null;
      const last = kept[kept.length - 1];
      if (last && keys.length && (result.data.length > limit || result.cut)) {
        const lastKey = keyOf(last);
        const same = (r: Record<string, unknown>) => keyOf(r).every((v, i) => v === lastKey[i]);
        let ties = 0;
        for (let i = kept.length - 1; i >= 0 && same(kept[i]!); i--) ties++;
        if (ties === kept.length) {
          // the run of equal keys may have started before this page
          if (from0 && lastKey.every((v, i) => v === from0!.values[i])) ties += from0.ties + offset;
          else if (offset > 0 || from0) ties = await countWhere(`(SELECT ${keys.join(', ')} FROM ${from}${where}${order} LIMIT ${skip + kept.length})`, keys.map((k, i) => `${k} = CAST(${literal(lastKey[i]!)} AS ${keyCols[i]!.type})`).join(' AND '));
        }
        nextCursor = encodeCursor(table, { names: sortKey, values: lastKey, ties });
      }
      const page: RowsPage = {
        table, columns: columns.map((c): Column => ({ ...c })), rows, limit, offset, total: await countWhere(from, '1'), totalEstimated: false,
        ...(result.cut ? { truncated: true } : {}),
        nextCursor,
      };
      return page;
    }),

    query: (statement, limits) => run(async () => {
      const text = statement.trim().replace(/;\s*$/, '');
      const seconds = Math.max(1, Math.ceil(limits.timeoutMs / 1000));
      const signal = AbortSignal.timeout(limits.timeoutMs + 5000);
      const bare = text.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/|\()+/, '');
      if (!READS.test(bare)) {
        await client.command({ query: text, clickhouse_settings: { max_execution_time: seconds }, abort_signal: signal });
        const done: QueryResult = { columns: [], rows: [], rowCount: 0, truncated: false };
        return done;
      }
      // 'break' stops reading at a block boundary once the limit is passed: rows past maxRows are dropped here.
      const { meta, data, cut } = await select(text, { max_execution_time: seconds, max_result_rows: limits.maxRows + 1, result_overflow_mode: 'break' }, signal, limits.maxBytes);
      const types = new Map(meta.map((m) => [m.name, m.type]));
      const result: QueryResult = {
        columns: meta.map((m) => ({ name: m.name, type: m.type })),
        rows: data.slice(0, limits.maxRows).map((r) => {
          const row: Row = {};
          for (const [k, v] of Object.entries(r)) row[k] = chCell(types.get(k) ?? '', v, serverZone);
          return row;
        }),
        rowCount: data.length,
        truncated: data.length > limits.maxRows || cut,
      };
      return result;
    }),

    insertRow: (table, values) => run(async () => {
      const { from, columns } = await catalogue(table);
      if (Object.keys(values).length === 0) throw new InvalidInput('the row is empty');
      const row: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(values)) {
        Object.defineProperty(row, k, { value: insertValue(columnOf(columns, k), v), enumerable: true, writable: true, configurable: true });
      }
      await client.insert({ table: from, values: [row], format: 'JSONEachRow' });
      const key: Row = {};
      for (const c of columns) if (c.primary) key[c.name] = values[c.name] ?? null;
      return key;
    }),

    updateRow: (table, primaryKey, values) => run(async () => {
      const { db, name, from, columns } = await catalogue(table);
      const sets = Object.entries(values).map(([k, v]) => {
        const col = columnOf(columns, k);
        return `${ident(col.name)} = ${sqlValue(col, v)}`;
      });
      if (sets.length === 0) throw new InvalidInput('nothing to update');
      const where = whereOf(columns, primaryKey);
      if ((await countWhere(from, where)) === 0) throw new NotFound(`no row with this key in ${table}`);
      await mutate(db, name, `ALTER TABLE ${from} UPDATE ${sets.join(', ')} WHERE ${where}`);
    }),

    deleteRow: (table, primaryKey) => run(async () => {
      const { db, name, from, columns } = await catalogue(table);
      const where = whereOf(columns, primaryKey);
      if ((await countWhere(from, where)) === 0) throw new NotFound(`no row with this key in ${table}`);
      await mutate(db, name, `ALTER TABLE ${from} DELETE WHERE ${where}`);
    }),

    async close() {
      await client.close();
    },
  };
}
