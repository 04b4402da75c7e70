// Starts the real daemon in-process on a free loopback port with a temporary data dir, and hands
// out clients with keys of every kind. Every API suite goes through this.
import { removeInstanceObjects } from './docker.js';
import { withKnex } from './snapshot.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BerthClient } from '../../shared/client.js';
import { readConfig } from '../../daemon/config.js';
import { startDaemon, type RunningDaemon } from '../../daemon/server.js';
import { TestCaddy } from './caddy.js';
import { SLICES } from './port-ranges.js';

export interface TestDaemon {
  daemon: RunningDaemon;
  dataDir: string;
  url: string;
  /** The daemon's own Caddy (the data plane); null when the suite opted out. */
  caddy: TestCaddy | null;
  /** A client holding an all-projects write key. */
  admin: BerthClient;
  /** A client with no key. */
  anonymous: BerthClient;
  /** A client holding a new key of the given kind. */
  clientWith(access: 'read' | 'write', projects: 'all' | string[]): Promise<BerthClient>;
  /** What the daemon logged (message and stack), oldest first. */
  logs: string[];
  /** Stops the daemon (containers keep running) and starts it again on the same data dir and port, `pauseMs` later (after `whileStopped`). */
  restart(pauseMs?: number, whileStopped?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

let portBlock = 0;

/** Removes the containers, networks and volumes the daemon of this data dir created (its instance id is in its store). */
export async function removeDaemonObjects(dataDir: string): Promise<void> {
  const instance = await withKnex(dataDir, async (knex) => ((await knex('settings').where({ key: 'instanceId' }).first()) as { value: string } | undefined)?.value).catch(() => undefined);
  if (instance) removeInstanceObjects(instance);
}

/**
 * Every test daemon gets a Caddy of its own (admin API and proxy addresses on free loopback ports),
 * stopped with it: host ports answer only through Caddy. A suite that sets BERTH_CADDY_ADMIN itself
 * (e.g. to http://127.0.0.1:1, a closed port: "no Caddy") gets none.
 */
export async function startTestDaemon(env: Record<string, string> = {}): Promise<TestDaemon> {
  let caddy: TestCaddy | null = null;
  if (env.BERTH_CADDY_ADMIN === undefined) {
    caddy = await TestCaddy.create();
    await caddy.start();
  }
  // a suite may start a daemon on a data dir it prepared (a restored one, or one it restarts on): that
  // dir and what its daemon made are the suite's to remove, not stop()'s
  const ownDir = env.BERTH_DATA_DIR === undefined;
  const dataDir = env.BERTH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'berth-test-'));
  const bootstrap = `test_${randomBytes(24).toString('hex')}`;
  // Each daemon in one test process gets its own slice of host ports.
  const base = SLICES.from + ((process.pid + portBlock++) % SLICES.count) * SLICES.size;
  const config = readConfig({
    BERTH_HOST: '127.0.0.1',
    BERTH_PORT: '0',
    BERTH_DATA_DIR: dataDir,
    BERTH_BOOTSTRAP_KEY: bootstrap,
    BERTH_PORT_RANGE: `${base}-${base + SLICES.size - 1}`,
    // `npm run test:unit` points it at a socket that does not exist: a suite there that reaches Docker fails
    ...(process.env.BERTH_DOCKER_SOCKET ? { BERTH_DOCKER_SOCKET: process.env.BERTH_DOCKER_SOCKET } : {}),
    ...(caddy?.env ?? {}),
    ...env,
  });
  const logs: string[] = [];
  const logger = (m: string, err?: unknown) => logs.push(`${m} ${err instanceof Error ? err.stack : ''}`);
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemon(config, logger);
  } catch (err) {
    await caddy?.dispose();
    throw err;
  }
  const admin = new BerthClient(daemon.url, bootstrap);
  const t: TestDaemon = {
    daemon,
    logs,
    async restart(pauseMs = 0, whileStopped) {
      await t.daemon.stop();
      await whileStopped?.();
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      t.daemon = await startDaemon({ ...config, port: t.daemon.port }, logger);
    },
    dataDir,
    url: daemon.url,
    caddy,
    admin,
    anonymous: new BerthClient(daemon.url, null),
    async clientWith(access, projects) {
      const { token } = await admin.createKey({ name: `${access} ${projects === 'all' ? 'all' : projects.join(',')}`, access, projects });
      return new BerthClient(daemon.url, token);
    },
    async stop() {
      await t.daemon.stop();
      await caddy?.dispose();
      if (ownDir) {
        await removeDaemonObjects(dataDir);
        rmSync(dataDir, { recursive: true, force: true });
      }
      // the error funnel logs every 500 as "<METHOD> <path> failed"
      const internal = logs.filter((l) => /^[A-Z]+ \S+ failed/.test(l));
      if (internal.length > 0) throw new Error(`the daemon logged internal errors:\n${internal.join('\n')}`);
    },
  };
  return t;
}
