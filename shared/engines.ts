// What each database engine supports, stated once for the daemon's core, the console and the CLI:
// its port, TLS, logical replication, the imports it accepts, its query language and how its rows
// page, and the connection variables it gives other services. Core (daemon/core/engines.ts,
// service-spec.ts, databases.ts, backups.ts), the console's database views and `berth db` read this
// table instead of lists of their own; test/unit/engine-capabilities.test.ts proves the daemon's
// engine modules and import checks agree with it. A new engine is one row here (and its module
// under daemon/databases/).
import type { DatabaseEngine, ImportSource } from './types.js';

/**
 * The language `POST .../database/query` takes: SQL in the engine's dialect, a Redis command line,
 * or a MongoDB database command as JSON.
 */
export type QueryDialect = 'postgresql' | 'mysql' | 'clickhouse' | 'redis' | 'mongodb';

/**
 * How `GET .../database/rows` pages: `keyset` (every page carries a `nextCursor`, passed back as
 * `after`), or `keyset-or-offset` (by the table's key; a table with no key goes on by `offset`).
 */
export type RowsPaging = 'keyset' | 'keyset-or-offset';

export interface EngineCapabilities {
  /** Its name as people know it. */
  label: string;
  /** The port it listens on inside its container (a service's `internalPort` must be this). */
  port: number;
  /** It serves TLS with a Berth-issued certificate (`GET .../database/tls`, the CA download). */
  tls: boolean;
  /** `postgresLogicalReplicationEnabled` may be set (wal_level=logical). */
  logicalReplication: boolean;
  /** The `:source` values `POST .../database/import/:source` accepts for a service of this engine. */
  importSources: readonly ImportSource[];
  queryDialect: QueryDialect;
  /** What the query console starts with. */
  queryExample: string;
  rowsPaging: RowsPaging;
  /** The variables other services can reference (`${db.POSTGRES_URL}`), computed from its own. */
  connectionVariables: readonly string[];
}

export const ENGINE_CAPABILITIES: { readonly [E in DatabaseEngine]: EngineCapabilities } = {
  postgres: {
    label: 'PostgreSQL',
    port: 5432,
    tls: true,
    logicalReplication: true,
    importSources: ['postgres-url'],
    queryDialect: 'postgresql',
    queryExample: 'SELECT 1;',
    rowsPaging: 'keyset-or-offset',
    connectionVariables: ['POSTGRES_URL', 'DATABASE_URL'],
  },
  timescale: {
    label: 'TimescaleDB',
    port: 5432,
    tls: true,
    logicalReplication: true,
    importSources: ['postgres-url'],
    queryDialect: 'postgresql',
    queryExample: 'SELECT 1;',
    rowsPaging: 'keyset-or-offset',
    connectionVariables: ['POSTGRES_URL', 'DATABASE_URL'],
  },
  mysql: {
    label: 'MySQL',
    port: 3306,
    tls: false,
    logicalReplication: false,
    importSources: [],
    queryDialect: 'mysql',
    queryExample: 'SELECT 1;',
    rowsPaging: 'keyset-or-offset',
    connectionVariables: ['MYSQL_URL', 'DATABASE_URL'],
  },
  redis: {
    label: 'Redis',
    port: 6379,
    tls: false,
    logicalReplication: false,
    importSources: ['redis-url'],
    queryDialect: 'redis',
    queryExample: 'KEYS *',
    rowsPaging: 'keyset',
    connectionVariables: ['REDIS_URL'],
  },
  mongodb: {
    label: 'MongoDB',
    port: 27017,
    tls: false,
    logicalReplication: false,
    importSources: [],
    queryDialect: 'mongodb',
    queryExample: '{"find": "collection", "filter": {}}',
    rowsPaging: 'keyset',
    connectionVariables: ['MONGODB_URL', 'MONGO_URL', 'DATABASE_URL'],
  },
  clickhouse: {
    label: 'ClickHouse',
    port: 8123,
    tls: false,
    logicalReplication: false,
    importSources: [],
    queryDialect: 'clickhouse',
    queryExample: 'SELECT 1;',
    rowsPaging: 'keyset-or-offset',
    connectionVariables: ['CLICKHOUSE_URL'],
  },
};

export interface ImportSourceSpec {
  /** The URL schemes a source URL may have (without the colon). */
  schemes: readonly string[];
  /** What the console's field is called, and an example URL for it. */
  label: string;
  example: string;
}

/** Every import source the daemon has (`POST .../database/import/:source`). */
export const IMPORT_SOURCES: { readonly [S in ImportSource]: ImportSourceSpec } = {
  'postgres-url': { schemes: ['postgres', 'postgresql'], label: 'PostgreSQL URL', example: 'postgresql://user:pass@host:5432/db' },
  'redis-url': { schemes: ['redis', 'rediss'], label: 'Redis URL', example: 'redis://:pass@host:6379/0' },
};

export const IMPORT_SOURCE_NAMES = Object.keys(IMPORT_SOURCES) as ImportSource[];

/** The engines a source imports into. */
export function enginesImportingFrom(source: ImportSource): DatabaseEngine[] {
  return (Object.keys(ENGINE_CAPABILITIES) as DatabaseEngine[]).filter((e) => ENGINE_CAPABILITIES[e].importSources.includes(source));
}

/** The import source a URL names by its scheme (`postgresql://...` -> `postgres-url`); null for none. */
export function importSourceOfUrl(url: string): ImportSource | null {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  return IMPORT_SOURCE_NAMES.find((s) => scheme !== undefined && IMPORT_SOURCES[s].schemes.includes(scheme)) ?? null;
}

/** The import a database service's page offers (its engine's first import source); null when it takes none or is no database. */
export function offeredImport(engine: DatabaseEngine | null): ImportSource | null {
  return engine === null ? null : (ENGINE_CAPABILITIES[engine].importSources[0] ?? null);
}
