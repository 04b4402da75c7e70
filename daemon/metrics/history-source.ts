// What metrics history samples every 10 s: each service's containers through the Engine's one-shot
// stats (CPU against the previous sample held in memory, as `docker stats` computes it; memory
// without the inactive page cache; network and block I/O as rates since the previous sample), summed
// per service (replicas add up), and the host: CPU, memory, the data dir's disk, network.
// A sampler of its own: the live view's (GET /api/system/metrics) keeps its own previous samples.
import { statfs } from 'node:fs/promises';
import type Docker from 'dockerode';
import type { FootprintProbe, HistorySource } from '../core/ports/metrics-history.js';
import type { Store } from '../core/ports/store.js';
import { type SeriesValues, zeroValues } from '../core/metrics-tiers.js';
import type { Ownership } from '../docker/labels.js';
import { ContainerSampler, type IoCounters, type RemoteEngines } from './containers.js';
import { footprintProbe } from './footprint.js';
import { readCpu, readMemory, readNetwork } from './host.js';

interface Previous {
  io: IoCounters;
  atMs: number;
}

function rate(now: number, before: number, seconds: number): number {
  // a restarted container counts from zero again
  return now >= before && seconds > 0 ? (now - before) / seconds : 0;
}

/** What core's metrics history needs from outside: the sampler and Berth's footprint. */
export function metricsHistoryAdapters(deps: { docker: Docker; own: Ownership; store: Store; dataDir: string; caddyAdmin: string; remotes?: RemoteEngines }): {
  historySource: HistorySource;
  footprint: FootprintProbe;
} {
  return { historySource: historySource(deps), footprint: footprintProbe(deps) };
}

export function historySource(deps: { docker: Docker; own: Ownership; store: Store; dataDir: string; remotes?: RemoteEngines }): HistorySource {
  const sampler = new ContainerSampler(deps.docker, deps.own, undefined, deps.remotes);
  const previous = new Map<string, Previous>();
  return {
    async sample() {
      const errors: string[] = [];
      // an unreachable Engine loses the services' round, not the host's
      const [sample, records, host] = await Promise.all([
        sampler.sample().catch((err: unknown) => {
          errors.push(`the Engine's stats: ${err instanceof Error ? err.message : String(err)}`);
          return { containers: [], failures: [] };
        }),
        deps.store.services.list(),
        readHost(deps.dataDir).catch((err: unknown) => {
          errors.push(`the host: ${err instanceof Error ? err.message : String(err)}`);
          return null;
        }),
      ]);
      const known = new Set(records.map((s) => s.id));
      const perService = new Map<string, SeriesValues>();
      const seen = new Set<string>();
      for (const c of sample.containers) {
        seen.add(c.containerId);
        const before = previous.get(c.containerId);
        previous.set(c.containerId, { io: c.io, atMs: c.readAtMs });
        // a container whose service is gone is reconciliation's business, not a metric; a container's
        // first sample has no CPU figure yet (no previous one): it counts from the next round
        if (!known.has(c.serviceId) || c.cpuPercent === null) continue;
        const v = perService.get(c.serviceId) ?? zeroValues();
        perService.set(c.serviceId, v);
        v.cpu += c.cpuPercent;
        v.mem += c.memoryBytes;
        v.memLimit += c.memoryLimitBytes;
        if (before) {
          const seconds = (c.readAtMs - before.atMs) / 1000;
          v.rx += rate(c.io.rx, before.io.rx, seconds);
          v.tx += rate(c.io.tx, before.io.tx, seconds);
          v.blkRead += rate(c.io.blkRead, before.io.blkRead, seconds);
          v.blkWrite += rate(c.io.blkWrite, before.io.blkWrite, seconds);
        }
      }
      for (const id of previous.keys()) if (!seen.has(id)) previous.delete(id);
      return {
        host,
        services: [...perService].map(([serviceId, values]) => ({ serviceId, values })),
        errors: [...errors, ...sample.failures.map((f) => `container ${f.containerName}: ${f.message}`)],
      };
    },
  };
}

async function readHost(dataDir: string): Promise<SeriesValues> {
  const [cpu, memory, network, disk] = await Promise.all([readCpu(), readMemory(), readNetwork(), statfs(dataDir)]);
  const v = zeroValues();
  v.cpu = cpu.loadPercent;
  v.mem = memory.usedBytes;
  v.memLimit = memory.totalBytes;
  for (const n of network) {
    v.rx += n.rxBytesPerSecond;
    v.tx += n.txBytesPerSecond;
  }
  v.diskTotal = disk.blocks * disk.bsize;
  v.diskUsed = (disk.blocks - disk.bfree) * disk.bsize;
  return v;
}
