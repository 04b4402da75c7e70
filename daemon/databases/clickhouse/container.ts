// ClickHouse as a container: the official image's data directory (its entrypoint does the rest).
import type { DatabaseContainer } from '../../core/database-engine.js';

export function clickhouseContainer(): DatabaseContainer {
  return { dataPath: '/var/lib/clickhouse', binds: [] };
}
