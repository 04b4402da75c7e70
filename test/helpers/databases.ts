// Database servers for the tests: the stand-in images (built once per machine by content hash)
// that the daemon runs through BERTH_IMAGE_<ENGINE>, and the MongoDB image when one is present.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { requireDocker } from './docker.js';
import { REPO_ROOT } from './repo-root.js';

let images: Record<string, string> | null = null;

/** Builds (or finds) the stand-in images; returns the BERTH_IMAGE_* variables for a test daemon. */
export function requireDatabaseImages(): Record<string, string> {
  if (images) return images;
  requireDocker();
  const res = spawnSync('bash', [join(REPO_ROOT, 'test/setup/db-images.sh')], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`database image setup failed:\n${res.stderr}\n${res.stdout}`);
  const [postgres, mysql, redis, clickhouse] = res.stdout.trim().split('\n');
  images = {
    BERTH_IMAGE_POSTGRES: postgres!,
    // TimescaleDB is not packaged for Debian and no registry is reachable: timescale services run
    // the PostgreSQL 15 stand-in here (the adapter and container code are the postgres ones).
    BERTH_IMAGE_TIMESCALE: postgres!,
    BERTH_IMAGE_MYSQL: mysql!,
    BERTH_IMAGE_REDIS: redis!,
    BERTH_IMAGE_CLICKHOUSE: clickhouse!,
  };
  const mongo = mongoImage();
  if (mongo) images.BERTH_IMAGE_MONGODB = mongo;
  return images;
}

/** Builds (or finds) one stand-in image only, for a suite that needs one engine: its reference. */
export function requireDatabaseImage(name: 'postgres' | 'mysql' | 'redis' | 'clickhouse'): string {
  requireDocker();
  const res = spawnSync('bash', [join(REPO_ROOT, 'test/setup/db-images.sh'), name], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`database image setup failed:\n${res.stderr}\n${res.stdout}`);
  return res.stdout.trim();
}

/** A MongoDB image present on this machine, or null (none is packaged; no registry is reachable). */
export function mongoImage(): string | null {
  for (const ref of [process.env.BERTH_TEST_MONGO_IMAGE, 'mongo:7', 'mongo:latest'].filter(Boolean) as string[]) {
    if (spawnSync('docker', ['image', 'inspect', ref], { stdio: 'ignore' }).status === 0) return ref;
  }
  return null;
}
