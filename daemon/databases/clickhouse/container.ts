// ClickHouse as a container: the official image's data directory (its entrypoint does the rest).
import type { DatabaseContainer } from '../engine-module.js';

export function clickhouseContainer(): DatabaseContainer {
  return { dataPath: '/var/lib/clickhouse', binds: [] };
}
