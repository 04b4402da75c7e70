// Database engines as services: the initial variables a new service gets, and the connection
// variables other services can reference (`${db.POSTGRES_URL}`), computed. What each engine
// supports (its port, TLS, imports, ...) is the shared table in shared/engines.ts.
import { ENGINE_CAPABILITIES } from '../../shared/engines.js';
import type { DatabaseEngine } from '../../shared/types.js';
import { strongPassword } from './ids.js';

interface EngineSpec {
  /** Initial variables, in the spec's order; a `null` value is a generated password. */
  initialEnv: [key: string, value: string | null][];
  /** Connection URL variables, built from the service's resolved variables. */
  urls(vars: ReadonlyMap<string, string>, host: string, port: number): Record<string, string>;
}

const DEFAULT_DB = 'app';
const DEFAULT_USER = 'app';

const e = encodeURIComponent;
const get = (vars: ReadonlyMap<string, string>, key: string) => vars.get(key) ?? '';

function postgresUrls(vars: ReadonlyMap<string, string>, host: string, port: number) {
  const url = `postgresql://${e(get(vars, 'POSTGRES_USER'))}:${e(get(vars, 'POSTGRES_PASSWORD'))}@${host}:${port}/${e(get(vars, 'POSTGRES_DB'))}`;
  return { POSTGRES_URL: url, DATABASE_URL: url };
}

export const ENGINES: Record<DatabaseEngine, EngineSpec> = {
  postgres: {
    initialEnv: [
      ['POSTGRES_DB', DEFAULT_DB],
      ['POSTGRES_USER', DEFAULT_USER],
      ['POSTGRES_PASSWORD', null],
    ],
    urls: postgresUrls,
  },
  timescale: {
    initialEnv: [
      ['POSTGRES_DB', DEFAULT_DB],
      ['POSTGRES_USER', DEFAULT_USER],
      ['POSTGRES_PASSWORD', null],
      ['TIMESCALEDB_TELEMETRY', 'off'],
    ],
    urls: postgresUrls,
  },
  mysql: {
    initialEnv: [
      ['MYSQL_DATABASE', DEFAULT_DB],
      ['MYSQL_USER', DEFAULT_USER],
      ['MYSQL_PASSWORD', null],
      ['MYSQL_ROOT_PASSWORD', null],
    ],
    urls(vars, host, port) {
      const url = `mysql://${e(get(vars, 'MYSQL_USER'))}:${e(get(vars, 'MYSQL_PASSWORD'))}@${host}:${port}/${e(get(vars, 'MYSQL_DATABASE'))}`;
      return { MYSQL_URL: url, DATABASE_URL: url };
    },
  },
  redis: {
    initialEnv: [['REDIS_PASSWORD', null]],
    urls(vars, host, port) {
      return { REDIS_URL: `redis://default:${e(get(vars, 'REDIS_PASSWORD'))}@${host}:${port}` };
    },
  },
  mongodb: {
    initialEnv: [
      ['MONGO_INITDB_ROOT_USERNAME', DEFAULT_USER],
      ['MONGO_INITDB_ROOT_PASSWORD', null],
    ],
    urls(vars, host, port) {
      const url = `mongodb://${e(get(vars, 'MONGO_INITDB_ROOT_USERNAME'))}:${e(get(vars, 'MONGO_INITDB_ROOT_PASSWORD'))}@${host}:${port}/?authSource=admin`;
      return { MONGODB_URL: url, MONGO_URL: url, DATABASE_URL: url };
    },
  },
  clickhouse: {
    initialEnv: [
      ['CLICKHOUSE_DB', DEFAULT_DB],
      ['CLICKHOUSE_USER', DEFAULT_USER],
      ['CLICKHOUSE_PASSWORD', null],
      ['CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT', '1'],
    ],
    urls(vars, host, port) {
      return {
        CLICKHOUSE_URL: `http://${e(get(vars, 'CLICKHOUSE_USER'))}:${e(get(vars, 'CLICKHOUSE_PASSWORD'))}@${host}:${port}/${e(get(vars, 'CLICKHOUSE_DB'))}`,
      };
    },
  },
};

/** The initial variables for a new database service: the user's values win, missing ones get defaults. */
export function initialDatabaseEnv(engine: DatabaseEngine, given: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, fallback] of ENGINES[engine].initialEnv) {
    out.set(key, given.get(key) || (fallback ?? strongPassword()));
  }
  for (const [key, value] of given) if (!out.has(key)) out.set(key, value);
  return out;
}

/** Names of the connection variables an engine exposes, without computing them (test/unit/engine-capabilities.test.ts proves `urls` computes exactly these). */
export function connectionVariableNames(engine: DatabaseEngine): string[] {
  return [...ENGINE_CAPABILITIES[engine].connectionVariables];
}

/** Who the daemon logs in as to browse a database: the service's own credentials. */
export interface DatabaseLogin {
  user: string;
  password: string;
  database: string;
}

export function databaseLogin(engine: DatabaseEngine, vars: ReadonlyMap<string, string>): DatabaseLogin {
  switch (engine) {
    case 'postgres':
    case 'timescale':
      return { user: vars.get('POSTGRES_USER') || 'postgres', password: get(vars, 'POSTGRES_PASSWORD'), database: vars.get('POSTGRES_DB') || vars.get('POSTGRES_USER') || 'postgres' };
    case 'mysql':
      return vars.get('MYSQL_USER')
        ? { user: get(vars, 'MYSQL_USER'), password: get(vars, 'MYSQL_PASSWORD'), database: get(vars, 'MYSQL_DATABASE') }
        : { user: 'root', password: get(vars, 'MYSQL_ROOT_PASSWORD'), database: get(vars, 'MYSQL_DATABASE') };
    case 'redis':
      return { user: 'default', password: get(vars, 'REDIS_PASSWORD'), database: '0' };
    case 'mongodb':
      return { user: get(vars, 'MONGO_INITDB_ROOT_USERNAME'), password: get(vars, 'MONGO_INITDB_ROOT_PASSWORD'), database: vars.get('MONGO_INITDB_DATABASE') || DEFAULT_DB };
    case 'clickhouse':
      return { user: vars.get('CLICKHOUSE_USER') || 'default', password: get(vars, 'CLICKHOUSE_PASSWORD'), database: vars.get('CLICKHOUSE_DB') || 'default' };
  }
}
