// What the shared database contract suite needs to know about each engine: how to create its
// tables (through the query endpoint, as a user would), the ids they list under, a row to write,
// its primary key, and statements that must fail. Everything else in the suite is the same for
// every engine.
import type { DatabaseEngine, DbRow } from '../../shared/types.js';

export interface EngineCase {
  engine: DatabaseEngine;
  /** Statements run through POST /database/query before the suite. */
  setup: string[];
  /** The table id of the main table, as listTables reports it. */
  table: string;
  /** A table literally named `x; DROP TABLE items`, with a column named with a quote. */
  weirdTable: string;
  row(i: number): DbRow;
  /** What reading row i back gives, when it differs from what was written. */
  readBack?(i: number): DbRow;
  pk(i: number): DbRow;
  patch: DbRow;
  /** The primary key column names, as the rows endpoint flags them. */
  primary: string[];
  /** A statement that returns the number of rows in the main table as the first column of one row. */
  count: string;
  syntaxError: string;
  /** A statement that makes the engine refuse a value (a constraint or type); null where the engine has none. */
  refusedWrite: string | null;
  /** Engines whose rows have a fixed set of columns refuse unknown ones. */
  fixedColumns: boolean;
  /** A table with a two-column key, made by `setup`, and its rows' keys in key order. */
  composite: { setup: string[]; table: string; order: DbRow[] } | null;
}

/** Rows whose key order differs from their insertion order (the second column decides ties). */
const PAIRS: [number, string][] = [
  [2, 'a'],
  [1, 'b'],
  [3, 'a'],
  [1, 'a'],
  [2, 'c'],
  [1, 'c'],
  [2, 'b'],
];
const pairOrder = (): DbRow[] => [...PAIRS].sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1])).map(([a, b]) => ({ a, b }));
const pairValues = (quote: string) => PAIRS.map(([a, b]) => `(${a}, ${quote}${b}${quote})`).join(', ');

const bytes = Buffer.from([0, 1, 2, 254, 255]).toString('base64');
const when = '2026-11-22T10:00:00.000Z';
const big = '9007199254740993'; // 2^53 + 1: not a safe JSON number

function sqlCase(engine: DatabaseEngine, table: string, weirdTable: string, setup: string[], refusedWrite: string, composite: EngineCase['composite']): EngineCase {
  return {
    composite,
    engine,
    setup,
    table,
    weirdTable,
    row: (i) => ({ id: i, name: `item ${i}`, big: { $bigint: big }, price: { $decimal: '12.50' }, data: { $bytes: bytes }, created: { $date: when } }),
    pk: (i) => ({ id: i }),
    patch: { name: 'changed', price: { $decimal: '99.99' } },
    primary: ['id'],
    count: 'SELECT count(*) AS n FROM items',
    syntaxError: 'SELEC 1',
    refusedWrite,
    fixedColumns: true,
  };
}

const postgresPairs: EngineCase['composite'] = {
  setup: ['CREATE TABLE pairs (a integer, b text COLLATE "C", note text, PRIMARY KEY (a, b))', `INSERT INTO pairs (a, b) VALUES ${pairValues("'")}`],
  table: 'public.pairs',
  order: pairOrder(),
};

const postgresSetup = [
  'CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL, big bigint, price numeric(12,2), data bytea, created timestamptz)',
  'CREATE TABLE "x; DROP TABLE items" ("we""ird" text PRIMARY KEY)',
  `INSERT INTO "x; DROP TABLE items" VALUES ('still here')`,
];

export const ENGINE_CASES: EngineCase[] = [
  sqlCase('postgres', 'public.items', 'public.x; DROP TABLE items', postgresSetup, 'INSERT INTO items (id, name) VALUES (1, NULL)', postgresPairs),
  sqlCase('timescale', 'public.items', 'public.x; DROP TABLE items', postgresSetup, 'INSERT INTO items (id, name) VALUES (1, NULL)', postgresPairs),
  sqlCase(
    'mysql',
    'app.items',
    'app.x; DROP TABLE items',
    [
      'CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, big BIGINT, price DECIMAL(12,2), data BLOB, created DATETIME(3))',
      'CREATE TABLE `x; DROP TABLE items` (`we``ird` VARCHAR(50) PRIMARY KEY)',
      "INSERT INTO `x; DROP TABLE items` VALUES ('still here')",
    ],
    'INSERT INTO items (id, name) VALUES (1, NULL)',
    {
      setup: ['CREATE TABLE pairs (a INT, b VARCHAR(10), note VARCHAR(10), PRIMARY KEY (a, b))', `INSERT INTO pairs (a, b) VALUES ${pairValues("'")}`],
      table: 'app.pairs',
      order: pairOrder(),
    },
  ),
  {
    engine: 'clickhouse',
    setup: [
      'CREATE TABLE items (id UInt32, name String, big Int64, created DateTime) ENGINE = MergeTree ORDER BY id',
      'CREATE TABLE `x; DROP TABLE items` (`we``ird` String) ENGINE = MergeTree ORDER BY `we``ird`',
      "INSERT INTO `x; DROP TABLE items` VALUES ('still here')",
    ],
    table: 'app.items',
    weirdTable: 'app.x; DROP TABLE items',
    row: (i) => ({ id: i, name: `item ${i}`, big: { $bigint: big }, created: { $date: when } }),
    pk: (i) => ({ id: i }),
    patch: { name: 'changed' },
    primary: ['id'],
    count: 'SELECT count() AS n FROM items',
    syntaxError: 'SELEC 1',
    refusedWrite: "INSERT INTO items (id, name) VALUES ('not a number', 'x')",
    fixedColumns: true,
    composite: {
      setup: ['CREATE TABLE pairs (a UInt32, b String, note String) ENGINE = MergeTree ORDER BY (a, b)', `INSERT INTO pairs (a, b) VALUES ${pairValues("'")}`],
      table: 'app.pairs',
      order: pairOrder(),
    },
  },
  {
    engine: 'redis',
    // a hash is the redis "table": its fields are the rows
    setup: ['SET "x; DROP TABLE items" "still here"'],
    table: 'items',
    weirdTable: 'x; DROP TABLE items',
    row: (i) => ({ field: `f${i}`, value: `value ${i}` }),
    pk: (i) => ({ field: `f${i}` }),
    patch: { value: 'changed' },
    primary: ['field'],
    count: 'HLEN items',
    syntaxError: 'NOSUCHCOMMAND 1',
    refusedWrite: 'INCR "x; DROP TABLE items"',
    fixedColumns: true,
    // a sorted set is ordered by (score, member); its members are unique
    composite: {
      setup: [`ZADD pairs ${PAIRS.map(([a, b]) => `${a} ${b}${a}`).join(' ')}`],
      table: 'pairs',
      order: pairOrder().map(({ a, b }) => ({ score: a!, member: `${b as string}${a as number}` })),
    },
  },
  {
    engine: 'mongodb',
    setup: ['{"create": "items"}', '{"create": "x; DROP TABLE items"}', '{"insert": "x; DROP TABLE items", "documents": [{"_id": "still here"}]}'],
    table: 'app.items',
    weirdTable: 'app.x; DROP TABLE items',
    row: (i) => ({ _id: i, name: `item ${i}`, big: { $bigint: big }, price: { $decimal: '12.50' }, data: { $bytes: bytes }, created: { $date: when } }),
    pk: (i) => ({ _id: i }),
    patch: { name: 'changed' },
    primary: ['_id'],
    count: '{"count": "items"}',
    syntaxError: '{"nosuchcommand": 1}',
    refusedWrite: '{"insert": "items", "documents": [{"_id": 1}]}',
    fixedColumns: false,
    composite: null, // one key, `_id`
  },
];
