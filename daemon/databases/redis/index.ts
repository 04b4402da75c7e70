// Redis: container, readiness, adapter (ioredis, loaded on first use) and backup tool.
import type { EngineModule } from '../engine-module.js';
import { redisTool } from './backup.js';
import { redisContainer } from './container.js';
import { READINESS_STATEMENT } from './ready.js';

export const redisModule: EngineModule = {
  engine: 'redis',
  container: redisContainer,
  servesTls: false,
  readinessStatement: READINESS_STATEMENT,
  open: async (conn) => (await import('./adapter.js')).openRedis(conn),
  backup: redisTool,
};
