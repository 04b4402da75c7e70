// The daemon and the postgres service the database benchmarks (bench:db, bench:backup) run against:
// dist/daemon/main.js as a child process with the stand-in database images, Caddy left unreachable
// (nothing is routed), and one Berth postgres service deployed through the API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import type { Project, Service } from '../../shared/types.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { DaemonProcess } from '../helpers/daemon-process.js';
import { removeDaemonObjects } from '../helpers/daemon.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface BenchDaemon {
  client: BerthClient;
  url: string;
  /** The daemon process's pid (for its RSS). */
  pid: number;
  /** Stops the daemon and removes its data dir. */
  stop(): Promise<void>;
}

/**
 * Starts the daemon on a free port with a fresh data dir; resolves once it answers health. By default
 * with the stand-in database images and Caddy left unreachable; `env` adds to or replaces that,
 * `launcher` starts it through run-daemon.sh (daemon-process.ts), `removeObjects` removes what it
 * made in Docker at stop.
 */
export async function startBenchDaemon(
  name: string,
  portRange: string,
  opts: { secret?: string; env?: Record<string, string>; launcher?: boolean; removeObjects?: boolean } = {},
): Promise<BenchDaemon> {
  const dataDir = mkdtempSync(join(tmpdir(), `berth-${name}-`));
  const secret = opts.secret ?? `bench-${Date.now()}-0123456789abcdef`;
  const env = { ...requireDatabaseImages(), BERTH_DATA_DIR: dataDir, BERTH_BOOTSTRAP_KEY: secret, BERTH_PORT_RANGE: portRange, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1', ...opts.env };
  const daemon = await DaemonProcess.create(env, { launcher: opts.launcher });
  const stop = async () => {
    await daemon.stop();
    if (opts.removeObjects) await removeDaemonObjects(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await daemon.start();
  } catch (err) {
    await stop();
    throw err;
  }
  return { client: daemon.client(secret), url: daemon.url, pid: daemon.pid!, stop };
}

/** A new project with a postgres service, deployed; resolves with its live container's name. */
export async function deployPostgres(client: BerthClient, projectName: string): Promise<{ project: Project; service: Service; container: string }> {
  const { project } = await client.createProject({ name: projectName });
  const { service } = await client.createService(project.id, { name: 'db', repoFullName: 'database:postgres' });
  const { deployment } = await client.deploy(service.id);
  for (;;) {
    const d = (await client.listDeployments(service.id)).deployments.find((x) => x.id === deployment.id)!;
    if (d.status === 'failed') throw new Error('the database did not deploy');
    if (d.status === 'running') return { project, service, container: d.containerName! };
    await sleep(500);
  }
}
