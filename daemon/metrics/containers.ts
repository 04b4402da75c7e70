// CPU and memory of the running containers this daemon owns, from the Engine's stats API. Samples
// are one-shot (Docker otherwise waits a second per container to fill `precpu_stats`), so the CPU
// percentage is computed here against the previous sample of the same container.
import type Docker from 'dockerode';
import { listOwnedContainers } from '../docker/containers.js';
import { statsReader, type StatsReader } from '../docker/one-shot-stats.js';
import { LABEL_DEPLOYMENT, LABEL_PROJECT, LABEL_SERVICE, type Ownership } from '../docker/labels.js';
import { round2 } from './host.js';

/** The parts of the Engine's stats JSON read here (cgroup v1 and v2 alike). */
export interface DockerStats {
  cpu_stats?: {
    cpu_usage?: { total_usage?: number; percpu_usage?: number[] | null };
    system_cpu_usage?: number;
    online_cpus?: number;
  };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
  /** Per interface (absent with the host's network). */
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
  /** cgroup v1 and v2 alike: `Read`/`Write` entries per device (v2 spells them lowercase). */
  blkio_stats?: { io_service_bytes_recursive?: { op?: string; value?: number }[] | null };
}

/** Bytes the container received and sent, read and wrote, since it started (for rates between samples). */
export interface IoCounters {
  rx: number;
  tx: number;
  blkRead: number;
  blkWrite: number;
}

function ioCounters(stats: DockerStats): IoCounters {
  let rx = 0;
  let tx = 0;
  for (const n of Object.values(stats.networks ?? {})) {
    rx += n.rx_bytes ?? 0;
    tx += n.tx_bytes ?? 0;
  }
  let blkRead = 0;
  let blkWrite = 0;
  for (const e of stats.blkio_stats?.io_service_bytes_recursive ?? []) {
    const op = (e.op ?? '').toLowerCase();
    if (op === 'read') blkRead += e.value ?? 0;
    else if (op === 'write') blkWrite += e.value ?? 0;
  }
  return { rx, tx, blkRead, blkWrite };
}

export interface CpuSample {
  /** Nanoseconds of CPU the container used, all cores. */
  total: number;
  /** Nanoseconds of CPU the host used, all cores. */
  system: number;
}

export interface ContainerMetrics {
  containerId: string;
  containerName: string;
  serviceId: string;
  /** As labelled at creation; the collector maps it to the service's project now. */
  labelProjectId: string;
  deploymentId: string;
  cpuPercent: number | null;
  memoryBytes: number;
  memoryLimitBytes: number;
  /** Counters since the container started, and when the Engine read them (ms). */
  io: IoCounters;
  readAtMs: number;
}

export interface ContainerFailure {
  serviceId: string;
  containerName: string;
  message: string;
}

const STATS_TIMEOUT_MS = 5_000;
/**
 * Stats requests in flight at once: a hundred containers do not open a hundred Engine requests.
 * Each one-shot answer waits for the Engine's next stats tick (about a second, whatever the load),
 * so a round takes about containers / this seconds: with 8, a hundred containers took 13 s, longer
 * than the 10 s between rounds (and every other round was skipped).
 */
const DEFAULT_CONCURRENCY = 32;

/** `fn` over `items` with at most `limit` running at once, results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** CPU used between two samples, like `docker stats`: 100 means one core busy. */
export function cpuPercent(previous: CpuSample | undefined, next: CpuSample, onlineCpus: number): number | null {
  if (!previous) return null;
  const used = next.total - previous.total;
  const elapsed = next.system - previous.system;
  // a restarted container starts counting again from zero
  if (used < 0 || elapsed <= 0) return null;
  return round2((used / elapsed) * onlineCpus * 100);
}

/** Memory in use without the reclaimable page cache, as `docker stats` shows it. */
export function memoryInUse(memory: NonNullable<DockerStats['memory_stats']>): number {
  const usage = memory.usage ?? 0;
  const stats = memory.stats ?? {};
  // cgroup v1 reports the hierarchy's total_inactive_file; cgroup v2 only inactive_file
  const inactive = stats.total_inactive_file ?? stats.inactive_file ?? 0;
  return inactive < usage ? usage - inactive : usage;
}

type CompleteStats = DockerStats & {
  cpu_stats: { cpu_usage: { total_usage: number }; system_cpu_usage: number };
  memory_stats: { usage: number };
};

function complete(stats: DockerStats): stats is CompleteStats {
  return stats.memory_stats?.usage !== undefined && stats.cpu_stats?.cpu_usage?.total_usage !== undefined && stats.cpu_stats.system_cpu_usage !== undefined;
}

/** An Engine the sampler reads, with its stats reader. */
interface Engine {
  docker: Docker;
  readStats: StatsReader;
}

/** The Engines of other Swarm nodes whose containers Berth runs directly (databases created there). */
export type RemoteEngines = () => Promise<Docker[]>;

export class ContainerSampler {
  private previous = new Map<string, CpuSample>();
  private readonly local: Engine;
  private readonly remoteReaders = new WeakMap<Docker, Engine>();

  constructor(
    docker: Docker,
    private readonly own: Ownership,
    private readonly concurrency = DEFAULT_CONCURRENCY,
    private readonly remotes: RemoteEngines = async () => [],
  ) {
    this.local = { docker, readStats: statsReader(docker) };
  }

  /** The running owned containers of this server, and of the other nodes' Engines (their Swarm tasks are Swarm's, left out). */
  private async running(): Promise<{ engine: Engine; container: Awaited<ReturnType<typeof listOwnedContainers>>[number] }[]> {
    const out = (await listOwnedContainers(this.local.docker, this.own, {})).filter((c) => c.running).map((container) => ({ engine: this.local, container }));
    for (const docker of await this.remotes()) {
      let engine = this.remoteReaders.get(docker);
      if (!engine) this.remoteReaders.set(docker, (engine = { docker, readStats: statsReader(docker) }));
      const containers = await listOwnedContainers(docker, this.own, {}).catch(() => []);
      for (const c of containers) if (c.running && !c.labels['com.docker.swarm.task.id']) out.push({ engine, container: c });
    }
    return out;
  }

  /** One sample of every running owned container, taken in parallel. */
  async sample(): Promise<{ containers: ContainerMetrics[]; failures: ContainerFailure[] }> {
    const running = await this.running();
    const results = await mapLimited(running, this.concurrency, async ({ engine, container: c }) => {
      const serviceId = c.labels[LABEL_SERVICE] ?? '';
      try {
        return await this.sampleOne(engine, c.id, c.name, serviceId, c.labels[LABEL_PROJECT] ?? '', c.labels[LABEL_DEPLOYMENT] ?? '');
      } catch (err) {
        // a container that stopped between the listing and its sample is simply gone
        if ((err as { statusCode?: number }).statusCode === 404) return null;
        return { serviceId, containerName: c.name, message: (err as Error).message };
      }
    });
    const live = new Set(running.map((r) => r.container.id));
    for (const id of this.previous.keys()) if (!live.has(id)) this.previous.delete(id);
    const containers: ContainerMetrics[] = [];
    const failures: ContainerFailure[] = [];
    for (const r of results) {
      if (r && 'message' in r) failures.push(r);
      else if (r) containers.push(r);
    }
    return { containers, failures };
  }

  private async sampleOne(engine: Engine, id: string, containerName: string, serviceId: string, labelProjectId: string, deploymentId: string): Promise<ContainerMetrics | null> {
    let stats = (await engine.readStats(id, STATS_TIMEOUT_MS, true)) as DockerStats;
    // Empty sections: a container on its way out, or an Engine whose one-shot answer lacked a part.
    // The collector's answer (two samples, a second or two) settles which; a running container is
    // never left out silently.
    if (!complete(stats)) {
      stats = (await engine.readStats(id, STATS_TIMEOUT_MS, false)) as DockerStats;
      if (!complete(stats)) {
        const running = await engine.docker
          .getContainer(id)
          .inspect()
          .then(
            (info) => info.State.Running,
            () => false,
          );
        if (!running) return null;
        throw new Error('the Engine gave no CPU or memory figures for this running container (is the memory cgroup controller enabled?)');
      }
    }
    const cpu = stats.cpu_stats;
    const memory = stats.memory_stats;
    const next: CpuSample = { total: cpu.cpu_usage.total_usage, system: cpu.system_cpu_usage };
    const onlineCpus = cpu.online_cpus ?? cpu.cpu_usage.percpu_usage?.length ?? 1;
    const percent = cpuPercent(this.previous.get(id), next, onlineCpus);
    this.previous.set(id, next);
    return {
      containerId: id,
      containerName,
      serviceId,
      labelProjectId,
      deploymentId,
      cpuPercent: percent,
      memoryBytes: memoryInUse(memory),
      memoryLimitBytes: memory.limit ?? 0,
      io: ioCounters(stats),
      readAtMs: Date.parse((stats as { read?: string }).read ?? '') || Date.now(),
    };
  }
}
