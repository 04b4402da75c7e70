// ClickHouse: container, readiness, adapter (@clickhouse/client, loaded on first use) and backup tool.
import type { EngineModule } from '../engine-module.js';
import { clickhouseTool } from './backup.js';
import { clickhouseContainer } from './container.js';
import { READINESS_STATEMENT } from './ready.js';

export const clickhouseModule: EngineModule = {
  engine: 'clickhouse',
  container: clickhouseContainer,
  servesTls: false,
  readinessStatement: READINESS_STATEMENT,
  open: async (conn) => (await import('./adapter.js')).openClickhouse(conn),
  backup: clickhouseTool,
};
