// MySQL/MariaDB: container, readiness, adapter (mysql2, loaded on first use) and backup tool.
import type { EngineModule } from '../engine-module.js';
import { mysqlTool } from './backup.js';
import { mysqlContainer } from './container.js';
import { READINESS_STATEMENT } from './ready.js';

export const mysqlModule: EngineModule = {
  engine: 'mysql',
  container: mysqlContainer,
  servesTls: false,
  readinessStatement: READINESS_STATEMENT,
  open: async (conn) => (await import('./adapter.js')).openMysql(conn),
  backup: mysqlTool,
};
