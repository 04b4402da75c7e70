// The adapter for an engine: the one place that knows which driver serves which engine.
import type { DatabaseEngine } from '../../shared/types.js';
import type { Connection, DatabaseAdapter } from './adapter.js';

export type OpenAdapter = (engine: DatabaseEngine, conn: Connection) => Promise<DatabaseAdapter>;

/** Each driver is loaded on first use: a daemon that never browses MongoDB never loads its driver (idle memory). */
export const openAdapter: OpenAdapter = async (engine, conn) => {
  switch (engine) {
    case 'postgres':
    case 'timescale':
      return (await import('./postgres.js')).openPostgres(conn);
    case 'mysql':
      return (await import('./mysql.js')).openMysql(conn);
    case 'redis':
      return (await import('./redis.js')).openRedis(conn);
    case 'mongodb':
      return (await import('./mongodb.js')).openMongo(conn);
    case 'clickhouse':
      return (await import('./clickhouse.js')).openClickhouse(conn);
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
