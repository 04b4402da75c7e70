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
import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { EngineRefused, InvalidInput, NotFound, DatabaseUnavailable } from '../../core/errors.js';
import type { Column, Connection, DatabaseAdapter, QueryResult, RowsPage, TableEntry } from '../../core/ports/database-adapter.js';
import { afterKeyCondition, decodeCursor, encodeCursor, InvalidCursor } from '../cursor.js';
import type { Cell, Row } from '../encoding.js';
import { toError } from './errors.js';
import { parseJsonExact, RawNumber, stringifyRow } from './json.js';
import { chCell, ident, insertValue, literal, sqlValue, type ColumnInfo } from './values.js';

const MUTATION_WAIT_MS = 30_000;
/** Result columns holding the sorting key as text, for the cursor. */
const KEY_ALIAS = '__berth_cursor_';
/** Engines whose count() reads stored rows cheaply; MergeTree tables are counted from system.parts. */
const COUNTABLE_ENGINES = new Set(['Memory', 'Log', 'TinyLog', 'StripeLog']);
/** Statements that answer with rows (FORMAT JSON can be appended); anything else runs as a command. */
const READS = /^(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS)\b/i;

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
    return keys
      .map((k) => {
        const col = columnOf(columns, k);
        const value = primaryKey[k]!;
        return value === null ? `isNull(${ident(col.name)})` : `${ident(col.name)} = ${sqlValue(col, value)}`;
      })
      .join(' AND ');
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
    listTables: () =>
      run(async () => {
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

    readRows: (table, { limit, offset, after }, _scope, maxBytes) =>
      run(async () => {
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
            else if (offset > 0 || from0)
              ties = await countWhere(
                `(SELECT ${keys.join(', ')} FROM ${from}${where}${order} LIMIT ${skip + kept.length})`,
                keys.map((k, i) => `${k} = CAST(${literal(lastKey[i]!)} AS ${keyCols[i]!.type})`).join(' AND '),
              );
          }
          nextCursor = encodeCursor(table, { names: sortKey, values: lastKey, ties });
        }
        const page: RowsPage = {
          table,
          columns: columns.map((c): Column => ({ ...c })),
          rows,
          limit,
          offset,
          total: await countWhere(from, '1'),
          totalEstimated: false,
          ...(result.cut ? { truncated: true } : {}),
          nextCursor,
        };
        return page;
      }),

    query: (statement, limits) =>
      run(async () => {
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

    insertRow: (table, values) =>
      run(async () => {
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

    updateRow: (table, primaryKey, values) =>
      run(async () => {
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

    deleteRow: (table, primaryKey) =>
      run(async () => {
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
