// MongoDB: container, readiness, adapter (the mongodb driver, loaded on first use) and backup tool.
import type { EngineModule } from '../engine-module.js';
import { mongodbTool } from './backup.js';
import { mongodbContainer } from './container.js';
import { READINESS_STATEMENT } from './ready.js';

export const mongodbModule: EngineModule = {
  engine: 'mongodb',
  container: mongodbContainer,
  servesTls: false,
  readinessStatement: READINESS_STATEMENT,
  open: async (conn) => (await import('./adapter.js')).openMongo(conn),
  backup: mongodbTool,
};
