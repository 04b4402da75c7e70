// Redis as a container: append-only persistence in /data, and the service's password.
import type { DatabaseContainer } from '../engine-module.js';

/** Where the official image keeps its data (the RDB restore writes there too). */
export const REDIS_DATA_PATH = '/data';

export function redisContainer(): DatabaseContainer {
  // The official image has no password variable: the server gets it from the environment,
  // never on a command line others can read in `docker inspect`.
  return {
    dataPath: REDIS_DATA_PATH,
    cmd: ['sh', '-c', 'exec redis-server --appendonly yes --requirepass "$REDIS_PASSWORD"'],
    binds: [],
  };
}
