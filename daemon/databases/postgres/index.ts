// PostgreSQL and TimescaleDB (the same server, the same driver and tools): one module, made for each.
import type { EngineModule } from '../engine-module.js';
import { postgresTool } from './backup.js';
import { postgresContainer } from './container.js';
import { READINESS_STATEMENT } from './ready.js';

export function postgresModule(engine: 'postgres' | 'timescale'): EngineModule {
  return {
    engine,
    container: postgresContainer,
    servesTls: true,
    readinessStatement: READINESS_STATEMENT,
    // pg loads on first use: a daemon that never browses a database never loads its driver.
    open: async (conn) => (await import('./adapter.js')).openPostgres(conn),
    backup: postgresTool(engine),
  };
}
