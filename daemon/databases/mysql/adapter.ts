// MySQL 8 and MariaDB (10.11 here) through `mysql2/promise`: one connection per adapter, big
// numbers as strings, dates as strings (read as UTC; the session runs at +00:00), binary told
// apart from text by charset 63. User statements and row pages are read as a stream of rows
// (mysql2's row events, nothing accumulated by the driver): rows past the row cap are only counted,
// and the socket's byte budget (answer-budget.ts) ends the connection once an answer reaches its
// byte cap, which also stops the statement on the server. The server's statement timeout
// (max_statement_time on MariaDB, max_execution_time on MySQL) bounds how long it runs, with
// mysql2's own query timeout as a backstop. Identifiers are checked against information_schema,
// then quoted with backticks; values travel as `?` parameters.
import mysql from 'mysql2/promise';
import type { FieldPacket, ResultSetHeader } from 'mysql2/promise';
import type { Connection as CoreConnection } from 'mysql2';
import type { Socket } from 'node:net';
import { BerthError, DatabaseUnavailable, InvalidInput, NotFound } from '../../core/errors.js';
import type { Column, Connection, DatabaseAdapter, PageRequest, QueryLimits, QueryResult, RowsPage, TableEntry } from '../../core/ports/database-adapter.js';
import { afterKeyCondition, decodeCursor, encodeCursor } from '../cursor.js';
import { SocketBudget } from '../answer-budget.js';
import { bigintCell, fromCell, toCell, type Cell, type Row } from '../encoding.js';
import { pickColumns, primaryKeyMatch } from '../sql-columns.js';
import { translate, type MysqlError } from './errors.js';
import { toRows, typeName } from './types.js';

const EXACT_COUNT_BELOW = 100_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** Extra time mysql2 waits past the statement timeout before it gives up on the server. */
const BACKSTOP_MS = 10_000;

interface StreamedResult {
  fields: FieldPacket[] | null;
  header: ResultSetHeader | null;
  rows: unknown[][];
  seen: number;
  cut: boolean;
}

interface MyColumn extends Column {
  autoIncrement: boolean;
}

const ident = (name: string): string => `\`${name.replace(/`/g, '``')}\``;

/** A cell as a parameter: tagged forms to driver kinds; plain objects/arrays as JSON text. */
function param(cell: Cell): unknown {
  const v = fromCell(cell);
  if (v !== null && typeof v === 'object' && !(v instanceof Date) && !Buffer.isBuffer(v)) return JSON.stringify(v);
  return v;
}

const INTEGER_TYPES = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'year']);

/**
 * The parameter marker for a cursor's key value: numbers travel as text (bigint keys past 2^53
 * stay exact) and are compared as exact decimals, not as the doubles MySQL compares strings with.
 */
function keyMarker(column: Column): string {
  if (INTEGER_TYPES.has(column.type)) return 'CAST(? AS DECIMAL(65,0))';
  if (column.type === 'decimal' || column.type === 'numeric') return 'CAST(? AS DECIMAL(65,30))';
  return '?';
}

export async function openMysql(conn: Connection): Promise<DatabaseAdapter> {
  let c: mysql.Connection;
  try {
    c = await mysql.createConnection({
      host: conn.host,
      port: conn.port,
      user: conn.user,
      password: conn.password,
      database: conn.database,
      connectTimeout: CONNECT_TIMEOUT_MS,
      multipleStatements: false,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      dateStrings: true,
      timezone: 'Z', // Date parameters are written as UTC
      flags: ['-LOCAL_FILES'], // a server must not be able to ask the daemon for its files
    });
  } catch (err) {
    const mapped = translate(err);
    throw mapped instanceof BerthError ? mapped : new DatabaseUnavailable(`mysql is unreachable: ${(err as Error).message}`);
  }
  // A dead socket while idle is reported here; without a listener it would crash the process.
  c.on('error', () => undefined);
  try {
    await c.query("SET time_zone = '+00:00'");
    const [rows] = await c.query({ sql: 'SELECT VERSION() AS v, DATABASE() AS db', rowsAsArray: true });
    const [version, database] = (rows as unknown[][])[0] as [string, string | null];
    // The callback connection under the promise wrapper: its row events stream a result.
    const core = (c as unknown as { connection: CoreConnection & { stream: Socket } }).connection;
    return new MysqlAdapter(c, version.includes('MariaDB'), database ?? conn.database, new SocketBudget(core.stream), core);
  } catch (err) {
    c.destroy();
    throw translate(err);
  }
}

class MysqlAdapter implements DatabaseAdapter {
  constructor(
    private readonly c: mysql.Connection,
    private readonly mariadb: boolean,
    private readonly database: string,
    private readonly budget: SocketBudget,
    private readonly core: CoreConnection & { stream: Socket },
  ) {}

  /**
   * One statement read as a stream of rows under the byte budget: the first result set's first
   * `keep` rows are kept, the rest counted. `cut` says the byte cap ended it (the connection is closed).
   */
  private streamed(sql: string, values: unknown[], keep: number, maxBytes: number, timeout?: number): Promise<StreamedResult> {
    return new Promise((resolve, reject) => {
      const out: StreamedResult = { fields: null, header: null, rows: [], seen: 0, cut: false };
      let settled = false;
      const finish = (err?: Error) => {
        if (settled) return;
        settled = true;
        this.budget.end();
        this.core.stream.removeListener('close', onClose);
        if (err && !this.budget.exceeded) return reject(err);
        out.cut = this.budget.exceeded;
        resolve(out);
      };
      // After a cut mysql2 reports the lost connection to the connection, not to the command.
      const onClose = () => finish(this.budget.exceeded ? undefined : new Error('Connection lost: The server closed the connection.'));
      this.core.stream.once('close', onClose);
      this.budget.begin(maxBytes);
      const q = this.core.query({ sql, values, rowsAsArray: true, ...(timeout ? { timeout } : {}) });
      q.on('fields', (fields: FieldPacket[] | undefined) => {
        if (out.fields === null && out.header === null && fields) out.fields = fields;
      });
      q.on('result', (row: unknown, index: number | undefined) => {
        if ((index ?? 0) !== 0) return; // a CALL answers with several result sets: the first one is shown
        if (!Array.isArray(row)) {
          if (out.fields === null && out.header === null) out.header = row as ResultSetHeader;
          return;
        }
        out.seen++;
        if (out.seen <= keep) out.rows.push(row as unknown[]);
      });
      q.on('error', (err: Error) => finish(err));
      q.on('end', () => finish());
    });
  }

  private async run(sql: string, values: unknown[] = [], names?: string[]): Promise<{ rows: Row[]; header: ResultSetHeader | null }> {
    try {
      const [result, fields] = await this.c.query({ sql, values, rowsAsArray: true });
      if (!Array.isArray(result)) return { rows: [], header: result as ResultSetHeader };
      return { rows: toRows(fields ?? [], result as unknown as unknown[][], names), header: null };
    } catch (err) {
      throw translate(err);
    }
  }

  private async tables(): Promise<{ name: string; estimate: number | null }[]> {
    const { rows } = await this.run(
      `SELECT TABLE_NAME AS name, TABLE_ROWS AS estimate FROM information_schema.TABLES
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED') ORDER BY TABLE_NAME`,
    );
    return rows.map((r) => ({ name: String(r['name']), estimate: r['estimate'] === null ? null : Number(r['estimate']) }));
  }

  /** The table an id names, compared exactly (information_schema compares names case-insensitively). */
  private async resolve(id: string): Promise<{ name: string; estimate: number | null }> {
    if (typeof id !== 'string' || id === '') throw new InvalidInput('table must be a table id such as "app.users"');
    const prefix = `${this.database}.`;
    const name = id.startsWith(prefix) ? id.slice(prefix.length) : null;
    const table = name === null ? undefined : (await this.tables()).find((t) => t.name === name);
    if (!table) throw new NotFound(`no table ${JSON.stringify(id)}`);
    return table;
  }

  private qualified(name: string): string {
    return `${ident(this.database)}.${ident(name)}`;
  }

  private async columns(table: string): Promise<{ columns: MyColumn[]; primaryKey: string[] }> {
    const cols = await this.run(
      `SELECT TABLE_NAME AS t, COLUMN_NAME AS name, DATA_TYPE AS type, EXTRA AS extra FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      [table],
    );
    const keys = await this.run(
      `SELECT TABLE_NAME AS t, COLUMN_NAME AS name FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX`,
      [table],
    );
    const primaryKey = keys.rows.filter((r) => r['t'] === table).map((r) => String(r['name']));
    const columns = cols.rows
      .filter((r) => r['t'] === table)
      .map((r) => ({
        name: String(r['name']),
        type: String(r['type']).toLowerCase(),
        primary: primaryKey.includes(String(r['name'])),
        autoIncrement: /auto_increment/i.test(String(r['extra'] ?? '')),
      }));
    return { columns, primaryKey };
  }

  /** Exact count when the estimate is small or unknown, else information_schema's estimate. */
  private async size(t: { name: string; estimate: number | null }): Promise<{ count: number; estimated: boolean }> {
    if (t.estimate !== null && t.estimate >= EXACT_COUNT_BELOW) return { count: t.estimate, estimated: true };
    const { rows } = await this.run(`SELECT COUNT(*) AS n FROM ${this.qualified(t.name)}`);
    return { count: Number(rows[0]!['n']), estimated: false };
  }

  async listTables(): Promise<TableEntry[]> {
    const out: TableEntry[] = [];
    for (const t of await this.tables()) {
      const { count, estimated } = await this.size(t);
      out.push({ id: `${this.database}.${t.name}`, name: t.name, schema: this.database, rowCount: count, rowCountEstimated: estimated });
    }
    return out;
  }

  async readRows(table: string, page: PageRequest, _scope: unknown, maxBytes: number): Promise<RowsPage> {
    const { limit, offset, after } = page;
    if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) {
      throw new InvalidInput('limit and offset must be non-negative integers');
    }
    const t = await this.resolve(table);
    const id = `${this.database}.${t.name}`;
    const { columns, primaryKey } = await this.columns(t.name);
    const keyColumns = primaryKey.map((k) => columns.find((c) => c.name === k)!);
    const order = primaryKey.length ? ` ORDER BY ${primaryKey.map(ident).join(', ')}` : '';
    // Positional aliases: mysql2 refuses to read a result column named like __proto__. The key
    // columns come again at the end, as the driver reads them (no conversion), for the cursor.
    const list = [...columns.map((c, i) => `${ident(c.name)} AS \`c${i}\``), ...primaryKey.map((k, i) => `${ident(k)} AS \`k${i}\``)].join(', ');
    const names = columns.map((c) => c.name);
    const params: unknown[] = [];
    let where = '';
    if (after !== null) {
      const { values } = decodeCursor(after, id, primaryKey);
      // Expanded rather than a row comparison: MariaDB does not use an index for `(a, b) > (?, ?)`.
      where = ` WHERE ${afterKeyCondition(primaryKey.map(ident), (i) => {
        params.push(param(values[i]!));
        return keyMarker(keyColumns[i]!);
      })}`;
    }
    const { count, estimated } = await this.size(t); // before the rows: a cut ends the connection
    let read: StreamedResult;
    try {
      // One row past the page tells whether there is a next one.
      read = await this.streamed(`SELECT ${list} FROM ${this.qualified(t.name)}${where}${order} LIMIT ? OFFSET ?`, [...params, limit + 1, offset], limit + 1, maxBytes);
    } catch (err) {
      throw translate(err);
    }
    const more = read.rows.length > limit || read.cut;
    const kept = read.rows.slice(0, limit);
    const last = kept[kept.length - 1];
    return {
      table: id,
      columns: columns.map(({ name, type, primary }) => ({ name, type, primary })),
      rows: toRows(read.fields ?? [], kept, names),
      limit,
      offset,
      total: count,
      totalEstimated: estimated,
      ...(read.cut ? { truncated: true } : {}),
      nextCursor: more && last && primaryKey.length ? encodeCursor(id, { names: primaryKey, values: last.slice(columns.length).map(toCell) }) : null,
    };
  }

  async query(statement: string, limits: QueryLimits): Promise<QueryResult> {
    const { timeoutMs, maxRows, maxBytes } = limits;
    // MariaDB: seconds, for every statement. MySQL: milliseconds, read-only SELECTs only.
    if (this.mariadb) await this.run('SET SESSION max_statement_time = ?', [Math.max(0.001, timeoutMs / 1000)]);
    else await this.run('SET SESSION max_execution_time = ?', [Math.max(1, Math.floor(timeoutMs))]);
    let result: StreamedResult;
    try {
      result = await this.streamed(statement, [], maxRows, maxBytes, timeoutMs + BACKSTOP_MS);
    } catch (err) {
      const e = err as MysqlError;
      // After mysql2's own timeout the connection is out of step with the server: drop it.
      if (e.code === 'PROTOCOL_SEQUENCE_TIMEOUT') this.c.destroy();
      throw translate(err, timeoutMs);
    } finally {
      // Keep the session transaction-less: a transaction the statement opened is rolled back.
      if (!this.budget.exceeded) await this.c.query('ROLLBACK').catch(() => undefined);
    }
    if (result.fields === null) {
      return { columns: [], rows: [], rowCount: result.header?.affectedRows ?? 0, truncated: false };
    }
    return {
      columns: result.fields.map((f) => ({ name: f.name, type: typeName(f) })),
      rows: toRows(result.fields, result.rows),
      rowCount: result.seen,
      truncated: result.seen > maxRows || result.cut,
    };
  }

  private keyMatch(columns: MyColumn[], primaryKey: string[], key: Row, params: unknown[]): string {
    return primaryKeyMatch(columns, primaryKey, key, ident, (c, cell) => {
      params.push(param(cell));
      return '?';
    });
  }

  async insertRow(table: string, values: Row): Promise<Row> {
    const t = await this.resolve(table);
    const { columns, primaryKey } = await this.columns(t.name);
    const given = pickColumns(columns, values, 'values');
    const sql = `INSERT INTO ${this.qualified(t.name)} (${given.map(([c]) => ident(c.name)).join(', ')}) VALUES (${given.map(() => '?').join(', ')})`;
    const { header } = await this.run(
      sql,
      given.map(([, cell]) => param(cell)),
    );
    const keyCell = (name: string): Cell => {
      if (Object.hasOwn(values, name)) return values[name]!;
      const column = columns.find((c) => c.name === name)!;
      if (column.autoIncrement && header) return bigintCell(String(header.insertId));
      return null; // a default the server chose (uuid(), ...): the protocol does not report it
    };
    return Object.fromEntries(primaryKey.map((name) => [name, keyCell(name)]));
  }

  async updateRow(table: string, primaryKey: Row, values: Row): Promise<void> {
    const t = await this.resolve(table);
    const { columns, primaryKey: pk } = await this.columns(t.name);
    const given = pickColumns(columns, values, 'values');
    if (!given.length) throw new InvalidInput('values must name at least one column to update');
    const params: unknown[] = given.map(([, cell]) => param(cell));
    const set = given.map(([c]) => `${ident(c.name)} = ?`).join(', ');
    const where = this.keyMatch(columns, pk, primaryKey, params);
    // mysql2 sets CLIENT_FOUND_ROWS, so affectedRows counts matched rows, changed or not.
    const { header } = await this.run(`UPDATE ${this.qualified(t.name)} SET ${set} WHERE ${where}`, params);
    if (!header?.affectedRows) throw new NotFound('no row with that primary key');
  }

  async deleteRow(table: string, primaryKey: Row): Promise<void> {
    const t = await this.resolve(table);
    const { columns, primaryKey: pk } = await this.columns(t.name);
    const params: unknown[] = [];
    const where = this.keyMatch(columns, pk, primaryKey, params);
    const { header } = await this.run(`DELETE FROM ${this.qualified(t.name)} WHERE ${where}`, params);
    if (!header?.affectedRows) throw new NotFound('no row with that primary key');
  }

  async close(): Promise<void> {
    await this.c.end().catch(() => this.c.destroy());
  }
}
