// The one registry of database engines: each engine is one module (daemon/databases/<engine>/)
// holding its container contract, readiness check, adapter and backup tool. Everything the daemon
// does with an engine goes through here.
import type { DatabaseEngine } from '../../shared/types.js';
import type { EngineBackupTool } from './backup-tool.js';
import type { Connection, DatabaseAdapter, OpenAdapter } from '../core/ports/database-adapter.js';
import type { DatabaseContainer, DatabaseOptions, EngineModule } from './engine-module.js';
import { clickhouseModule } from './clickhouse/index.js';
import { mongodbModule } from './mongodb/index.js';
import { mysqlModule } from './mysql/index.js';
import { postgresModule } from './postgres/index.js';
import { redisModule } from './redis/index.js';

export const ENGINE_MODULES: Readonly<Record<DatabaseEngine, EngineModule>> = {
  postgres: postgresModule('postgres'),
  timescale: postgresModule('timescale'),
  mysql: mysqlModule,
  redis: redisModule,
  mongodb: mongodbModule,
  clickhouse: clickhouseModule,
};

export function engineModule(engine: DatabaseEngine): EngineModule {
  return ENGINE_MODULES[engine];
}

/** Each driver is loaded on first use: a daemon that never browses MongoDB never loads its driver (idle memory). */
export const openAdapter: OpenAdapter = (engine, conn) => engineModule(engine).open(conn);

/** Opens, runs `work`, and always closes. */
export async function withAdapter<T>(open: OpenAdapter, engine: DatabaseEngine, conn: Connection, work: (a: DatabaseAdapter) => Promise<T>): Promise<T> {
  const adapter = await open(engine, conn);
  try {
    return await work(adapter);
  } finally {
    await adapter.close().catch(() => undefined);
  }
}

export function backupTool(engine: DatabaseEngine): EngineBackupTool {
  return engineModule(engine).backup;
}

export function databaseContainer(engine: DatabaseEngine, opts: DatabaseOptions): DatabaseContainer {
  return engineModule(engine).container(opts);
}
