// Database services: tables, rows and queries (see daemon/databases/encoding.ts for the tagged value
// forms: $bigint, $decimal, $bytes, $date, $oid). What each engine supports is in ../engines.ts.

export type DatabaseEngine = 'postgres' | 'timescale' | 'mysql' | 'redis' | 'mongodb' | 'clickhouse';

export type DbCell = null | boolean | number | string | DbCell[] | { [key: string]: DbCell };

export type DbRow = Record<string, DbCell>;

export interface DatabaseTable {
  id: string;
  name: string;
  schema: string;
  rowCount: number;
  /** True when rowCount is the engine's estimate (big tables). */
  rowCountEstimated: boolean;
}

export interface DatabaseColumn {
  name: string;
  type: string;
  primary: boolean;
}

export interface DatabaseRowsPage {
  engine: DatabaseEngine;
  table: string;
  columns: DatabaseColumn[];
  rows: DbRow[];
  limit: number;
  offset: number;
  total: number;
  totalEstimated: boolean;
  /** Present (true) only when the page was cut at the daemon's byte cap (16 MB). */
  truncated?: boolean;
  /** Pass as `after` for the next page (keyset paging); null on the last page or when the table has no key to page by. */
  nextCursor: string | null;
}

export interface DatabaseQueryResult {
  columns: { name: string; type: string }[];
  rows: DbRow[];
  rowCount: number;
  truncated: boolean;
}

export interface PostgresTls {
  active: boolean;
  caCertAvailable: boolean;
  publicHostname: string;
  publicPort: number;
}
