// The adapter for an engine: the one place that knows which driver serves which engine.
import type { DatabaseEngine } from '../../shared/types.js';
import type { Connection, DatabaseAdapter } from './adapter.js';
import { openClickhouse } from './clickhouse.js';
import { openMongo } from './mongodb.js';
import { openMysql } from './mysql.js';
import { openPostgres } from './postgres.js';
import { openRedis } from './redis.js';

export type OpenAdapter = (engine: DatabaseEngine, conn: Connection) => Promise<DatabaseAdapter>;

export const openAdapter: OpenAdapter = (engine, conn) => {
  switch (engine) {
    case 'postgres':
    case 'timescale':
      return openPostgres(conn);
    case 'mysql':
      return openMysql(conn);
    case 'redis':
      return openRedis(conn);
    case 'mongodb':
      return openMongo(conn);
    case 'clickhouse':
      return openClickhouse(conn);
  }
};

/** Opens, runs `work`, and always closes. */
export async function withAdapter<T>(open: OpenAdapter, engine: DatabaseEngine, conn: Connection, work: (a: DatabaseAdapter) => Promise<T>): Promise<T> {
  const adapter = await open(engine, conn);
  try {
    return await work(adapter);
  } finally {
    await adapter.close().catch(() => undefined);
  }
}
