// The database port core depends on (issue 19: core owns its ports): one interface every
// database engine's adapter implements (daemon/databases/<engine>/adapter.ts), so the API, the
// contract tests and the desktop app see the same shapes whatever the engine. Adapters speak to a running server through its
// official Node driver; they never splice an identifier or a value into a statement: identifiers
// are quoted by the adapter's own quoting function after being checked against the catalogue,
// values always travel as driver parameters.
import type { DatabaseColumn, DatabaseEngine, DatabaseRowsPage, DbCell, DbRow } from '../../../shared/types.js';

/** One value of a row, in the JSON encoding of daemon/databases/encoding.ts (the API's DbCell). */
export type Cell = DbCell;
export type Row = DbRow;

/** Where and how to reach a database server; built by the daemon from the service's variables. */
export interface Connection {
  host: string;
  port: number;
  user: string;
  password: string;
  /** The database to use (postgres, mysql, clickhouse); mongodb/redis ignore or treat it as a default. */
  database: string;
}

export interface TableEntry {
  /** `<schema>.<table>` for postgres; `<database>.<collection>` for mongodb; the key name for redis; `<database>.<table>` for clickhouse and mysql. */
  id: string;
  name: string;
  schema: string;
  /** Exact for small tables; the engine's own estimate for big ones (see `rowCountEstimated`). */
  rowCount: number;
  rowCountEstimated: boolean;
}

/** The API's shapes, as adapters answer them (the route adds the engine to a rows page). */
export type Column = DatabaseColumn;

export type RowsPage = Omit<DatabaseRowsPage, 'engine'>;

/** Which rows a page holds: `offset` rows are skipped after the cursor `after` (or the start). */
export interface PageRequest {
  limit: number;
  offset: number;
  /** A `nextCursor` of an earlier page of this table (see cursor.ts); null for the start. */
  after: string | null;
}

export interface QueryResult {
  columns: { name: string; type: string }[];
  rows: Row[];
  /** Rows the statement returned or affected (before the row cap). */
  rowCount: number;
  /** True when more rows existed than `maxRows`, or the answer reached `maxBytes`: `rows` holds what fitted. */
  truncated: boolean;
}

export interface QueryLimits {
  timeoutMs: number;
  maxRows: number;
  /** The most bytes the answer may bring into the daemon (see answer-budget.ts); past it the read stops. */
  maxBytes: number;
}

/** Which part of a server a table name lives in: redis's logical database number. */
export interface Scope {
  database?: number;
}

export interface DatabaseAdapter {
  listTables(scope: Scope): Promise<TableEntry[]>;
  /**
   * A page of rows in key order. `table` is a TableEntry id. Unknown table: NotFound; a cursor that
   * is not one of this table's: InvalidInput `invalid_cursor`. At most `maxBytes` are read (then
   * `truncated`, and `nextCursor` points after the last row that fitted).
   */
  readRows(table: string, page: PageRequest, scope: Scope, maxBytes: number): Promise<RowsPage>;
  /** Runs one statement as written by the user (its text is theirs: it is the point of the endpoint). */
  query(statement: string, limits: QueryLimits, scope: Scope): Promise<QueryResult>;
  /** Inserts one row; returns its primary key as an object keyed by primary column. */
  insertRow(table: string, values: Row, scope: Scope): Promise<Row>;
  /** Updates the row with this primary key; NotFound when no row has it. */
  updateRow(table: string, primaryKey: Row, values: Row, scope: Scope): Promise<void>;
  /** Deletes the row with this primary key; NotFound when no row has it. */
  deleteRow(table: string, primaryKey: Row, scope: Scope): Promise<void>;
  close(): Promise<void>;
}

/** Opens the adapter of an engine (its driver loads on first use); the caller closes it. */
export type OpenAdapter = (engine: DatabaseEngine, conn: Connection) => Promise<DatabaseAdapter>;

/**
 * Longest row cursor accepted: a key of long text values still fits (btree keys are at most a few
 * KB), and the whole request line stays under Node's 16 KB header limit.
 */
export const CURSOR_MAX_LENGTH = 12_000;
