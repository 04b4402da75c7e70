// Each engine's backup tool (see ../engine-tool.ts): the engine's own dump and restore programs,
// run inside the database's container.
import type { DatabaseEngine } from '../../../shared/types.js';
import type { EngineBackupTool } from '../engine-tool.js';
import { clickhouseTool } from './clickhouse.js';
import { mongodbTool } from './mongodb.js';
import { mysqlTool } from './mysql.js';
import { postgresTool } from './postgres.js';
import { redisTool } from './redis.js';

const postgres = postgresTool('postgres');
const timescale = postgresTool('timescale');

export function backupTool(engine: DatabaseEngine): EngineBackupTool {
  switch (engine) {
    case 'postgres':
      return postgres;
    case 'timescale':
      return timescale;
    case 'mysql':
      return mysqlTool;
    case 'redis':
      return redisTool;
    case 'mongodb':
      return mongodbTool;
    case 'clickhouse':
      return clickhouseTool;
  }
}
