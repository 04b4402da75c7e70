// MySQL/MariaDB as a container: the official image's data directory, and utf8mb4 by default.
import type { DatabaseContainer } from '../engine-module.js';

export function mysqlContainer(): DatabaseContainer {
  // MariaDB-compatible images default to latin1; both MySQL 8 and MariaDB take these.
  return { dataPath: '/var/lib/mysql', cmd: ['--character-set-server=utf8mb4', '--collation-server=utf8mb4_unicode_ci'], binds: [] };
}
