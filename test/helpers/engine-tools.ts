// Each engine's backup tool against a real database container started from the stand-in images
// the way the daemon starts it (runContainer + databaseContainer: same command, data volume and
// environment contract): the container, the clients run inside it, dumping to and restoring from
// files. Used by test/backups/engine-tools-*.test.ts.
import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '../../daemon/config.js';
import { ENGINE_CAPABILITIES } from '../../shared/engines.js';
import type { ToolContext } from '../../daemon/databases/backup-tool.js';
import { backupTool, databaseContainer } from '../../daemon/databases/engines.js';
import { runContainer } from '../../daemon/docker/containers.js';
import type { DatabaseEngine } from '../../shared/types.js';
import { requireDatabaseImages } from './databases.js';

export const dockerApi = new Docker();
const RUN = randomBytes(3).toString('hex');
const NETWORK = `berth-tooltest-${RUN}`;
const made = { containers: [] as string[], volumes: [] as string[] };
let dir = '';
let images: Record<string, string> = {};

/** The folder dumps are written to in the running suite. */
export const toolDir = (): string => dir;

export interface Db {
  name: string;
  id: string;
  env: Record<string, string>;
  port: number | null;
}

export async function startDb(engine: DatabaseEngine, env: Record<string, string>, image?: string): Promise<Db> {
  const spec = databaseContainer(engine, { logicalReplication: false, tlsDir: null });
  const name = `berth-tooltest-${RUN}-${engine}-${randomBytes(3).toString('hex')}`;
  const volume = `${name}-data`;
  made.containers.push(name);
  made.volumes.push(volume);
  const c = await runContainer(dockerApi, {
    name,
    image: image ?? images[`BERTH_IMAGE_${engine.toUpperCase()}`]!,
    env,
    labels: { 'dev.berth.test': 'engine-tools' },
    network: NETWORK,
    alias: name,
    internalPort: ENGINE_CAPABILITIES[engine].port,
    limits: readConfig({}).limits.database,
    volumes: [{ name: volume, target: spec.dataPath }],
    binds: spec.binds,
    ...(spec.entrypoint ? { entrypoint: spec.entrypoint } : {}),
    ...(spec.cmd ? { cmd: spec.cmd } : {}),
  });
  return { name, id: c.id, env, port: c.upstreamPort };
}

export function context(db: Db, extra: Partial<ToolContext> = {}): ToolContext & { restarts: number } {
  const ctx = {
    docker: dockerApi,
    containerId: db.id,
    env: db.env,
    signal: new AbortController().signal,
    log: () => undefined,
    restarts: 0,
    restarted: async () => {
      ctx.restarts++;
    },
    ...extra,
  };
  return ctx;
}

/** Runs a client inside the container; the password goes in through -e (test containers only). */
export function dexec(db: Db, env: Record<string, string>, ...cmd: string[]): string {
  const args = ['exec', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), db.name, ...cmd];
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export const psql = (db: Db, sql: string) =>
  dexec(db, { PGPASSWORD: db.env.POSTGRES_PASSWORD! }, 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-U', db.env.POSTGRES_USER!, '-d', db.env.POSTGRES_DB!, '-Atc', sql);
export const mariadb = (db: Db, sql: string) =>
  dexec(db, { MYSQL_PWD: db.env.MYSQL_ROOT_PASSWORD! }, 'mariadb', '-h', '127.0.0.1', '-u', 'root', '--default-character-set=utf8mb4', '-N', '-B', '-e', sql);
export const clickhouse = (db: Db, sql: string) =>
  dexec(db, {}, 'sh', '-c', 'exec clickhouse-client --host "$(hostname -i | cut -d" " -f1)" --user "$CLICKHOUSE_USER" --password "$CLICKHOUSE_PASSWORD" --multiquery --query "$1"', 'q', sql);

export function tryOr<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}

export async function dumpToFile(engine: DatabaseEngine, ctx: ToolContext, file: string): Promise<void> {
  const out = createWriteStream(file);
  try {
    await backupTool(engine).dump(ctx, out);
  } finally {
    out.end();
    await once(out, 'close');
  }
}

export const restoreFrom = (engine: DatabaseEngine, ctx: ToolContext, file: string) => backupTool(engine).restore(ctx, createReadStream(file));

export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

export const UNICODE = 'héllo wörld ✓ 日本語 🚀';

/** Every engine-tools suite: the stand-in images, a folder and a network of its own, removed after. */
export function toolBedHooks(): void {
  before(async function () {
    images = requireDatabaseImages();
    dir = mkdtempSync(join(tmpdir(), 'berth-tooltest-'));
    await dockerApi.createNetwork({ Name: NETWORK, Labels: { 'dev.berth.test': 'engine-tools' } });
  });

  after(async function () {
    for (const name of made.containers)
      await dockerApi
        .getContainer(name)
        .remove({ force: true, v: true })
        .catch(() => undefined);
    for (const name of made.volumes)
      await dockerApi
        .getVolume(name)
        .remove()
        .catch(() => undefined);
    await dockerApi
      .getNetwork(NETWORK)
      .remove()
      .catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
    made.containers = [];
    made.volumes = [];
    dir = '';
  });
}
