// The daemon the hot-path benches run against (bench:ops: events fan-out, terminal echo, job start
// latency; bench:backup: a volume's backup): a child process started as `npm start` starts it
// (installers/run-daemon.sh, whose allocator and V8 settings the memory figures depend on; the
// bench's own clients do not share its event loop), with a real Caddy of its own, and image services
// on the busybox httpd fixture deployed through the API. `runAlone` is how each bench file runs by
// itself: its line printed, exit code 1 when it MISSes.
import type { BerthClient, CreateServiceInput } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { TestCaddy } from '../helpers/caddy.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';
import { waitForDeployment } from '../helpers/wait.js';
import { type BenchDaemon, startBenchDaemon } from './bench-daemon.js';

export interface OpsDaemon {
  url: string;
  /** The bootstrap key (all projects, write). */
  token: string;
  client: BerthClient;
  /** The daemon process's pid (for its RSS). */
  pid: number;
  /** A new project with `count` live image services (berth-test/httpd: sh, no bash), `extra` added to each. */
  liveServices(name: string, count: number, extra?: Partial<CreateServiceInput>): Promise<{ projectId: string; services: Service[] }>;
  stop(): Promise<void>;
}

export async function startOpsDaemon(): Promise<OpsDaemon> {
  requireDocker();
  const token = `bench-${Date.now()}-0123456789abcdef`;
  const caddy = await TestCaddy.create();
  await caddy.start();
  let daemon: BenchDaemon;
  try {
    daemon = await startBenchDaemon('ops-bench', PORT_RANGES.opsBench, { secret: token, env: { ...caddy.env, BERTH_HEALTH_TIMEOUT: '30' }, launcher: true, removeObjects: true });
  } catch (err) {
    await caddy.dispose();
    throw err;
  }
  const client = daemon.client;
  const projects: string[] = [];
  const stop = async () => {
    for (const id of projects) await client.deleteProject(id).catch(() => undefined);
    await daemon.stop();
    await caddy.dispose();
  };
  return {
    url: daemon.url,
    token,
    client,
    pid: daemon.pid,
    async liveServices(name, count, extra = {}) {
      const { project } = await client.createProject({ name: uniq(name) });
      projects.push(project.id);
      const services: Service[] = [];
      for (let i = 0; i < count; i++) {
        const { service } = await client.createService(project.id, { name: `app${i}`, repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080, ...extra });
        services.push(service);
      }
      await Promise.all(
        services.map(async (s) => {
          const { deployment } = await client.deploy(s.id);
          const done = await waitForDeployment(client, s.id, deployment.id, ['running', 'failed'], 120_000);
          if (done.status !== 'running') throw new Error(`${s.name} did not deploy (${done.status})`);
        }),
      );
      return { projectId: project.id, services };
    },
    stop,
  };
}

/** p50 and p99 of a list of milliseconds (nearest rank). */
export function percentiles(ms: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

export const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');

/** Runs one bench line against a daemon of its own: prints it, and exits 1 when it MISSes (or fails). */
export function runAlone(bench: (d: OpsDaemon) => Promise<string>): void {
  void (async () => {
    let d: OpsDaemon | null = null;
    try {
      d = await startOpsDaemon();
      const line = await bench(d);
      console.log(line);
      if (/\bMISS\b/.test(line)) process.exitCode = 1;
    } catch (err) {
      console.error(err);
      process.exitCode = 1;
    } finally {
      await d?.stop().catch((err: unknown) => console.error(err));
    }
  })();
}
