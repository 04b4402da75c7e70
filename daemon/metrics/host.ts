// Host metrics through systeminformation: CPU load, memory, disks, network rates. Each part is a
// function of its own so the collector can report one failed probe as null and keep the rest.
// systeminformation keeps the previous CPU ticks and interface counters itself, so load and
// rates are averages since the previous call (the collector calls at most every 2 s).
import { realpath, stat, statfs } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { dirname } from 'node:path';
import type * as SystemInformation from 'systeminformation';
import type { DiskMetrics, HostCpuMetrics, HostMemoryMetrics, NetworkMetrics } from '../../shared/types.js';

/** Filesystems that hold no data of their own (or only Docker's layers). */
const PSEUDO_FS_TYPES = new Set(['overlay', 'aufs', 'tmpfs', 'devtmpfs', 'ramfs', 'squashfs', 'nsfs', 'proc', 'sysfs', 'cgroup', 'cgroup2', 'autofs', 'efivarfs', 'tracefs', 'debugfs', 'fuse.lxcfs']);
/** Mounts under these belong to the system or to Docker, not to the operator. */
const SYSTEM_MOUNTS = /^\/(var\/lib\/docker|run|snap|proc|sys|dev)(\/|$)/;
/**
 * Docker's bridges (one per Berth project) and veth pairs would add an entry, and a process
 * spawned by systeminformation, per project and per container; the host's own interfaces carry
 * its traffic.
 */
const DOCKER_IFACES = /^(veth|docker\d|br-)/;

/** systeminformation, loaded on the first metrics request (it stays resident once loaded, with its tick state). */
let si: Promise<typeof SystemInformation> | null = null;
const systemInformation = () => (si ??= import('systeminformation'));

export async function readCpu(): Promise<HostCpuMetrics> {
  const load = await (await systemInformation()).currentLoad();
  if (load.cpus.length < 1 || !Number.isFinite(load.currentLoad)) throw new Error('systeminformation reported no CPU load');
  return { cores: load.cpus.length, loadPercent: round2(clamp(load.currentLoad, 0, 100)) };
}

export async function readMemory(): Promise<HostMemoryMetrics> {
  const m = await (await systemInformation()).mem();
  if (!(m.total > 0)) throw new Error('systeminformation reported no memory total');
  // `used` counts the page cache; what the kernel could not hand out at once is total - available.
  return { totalBytes: m.total, usedBytes: clamp(m.total - m.available, 0, m.total) };
}

/** Real filesystems, one entry per device (its shortest mount), always including the data dir's. */
export async function readDisks(dataDir: string): Promise<DiskMetrics[]> {
  const [all, dataMount] = await Promise.all([systemInformation().then((m) => m.fsSize()), mountPointOf(dataDir)]);
  const disks: DiskMetrics[] = [];
  const devices = new Set<string>();
  for (const fs of [...all].sort((a, b) => a.mount.length - b.mount.length)) {
    const real = fs.mount === '/' || (!PSEUDO_FS_TYPES.has(fs.type) && !SYSTEM_MOUNTS.test(fs.mount));
    if (!real || devices.has(fs.fs)) continue;
    devices.add(fs.fs);
    disks.push({ mount: fs.mount, totalBytes: fs.size, usedBytes: fs.used });
  }
  if (!disks.some((d) => d.mount === dataMount)) {
    const listed = all.find((fs) => fs.mount === dataMount);
    disks.push(listed ? { mount: listed.mount, totalBytes: listed.size, usedBytes: listed.used } : await statDisk(dataMount));
  }
  return disks.sort((a, b) => a.mount.localeCompare(b.mount));
}

/**
 * Rates need two readings at least 500 ms apart (systeminformation's minimum); an interface seen
 * for the first time is read again after that, in parallel with the CPU's own first measurement.
 */
const FIRST_RATE_WAIT_MS = 600;

/** The host's interfaces with an address, without loopback and Docker's own. */
export async function readNetwork(): Promise<NetworkMetrics[]> {
  const names = Object.entries(networkInterfaces())
    .filter(([name, addresses]) => !DOCKER_IFACES.test(name) && (addresses ?? []).some((a) => !a.internal))
    .map(([name]) => name)
    .join(',');
  if (names === '') return [];
  let stats = await (await systemInformation()).networkStats(names);
  // the typings say number, but the first reading of an interface has no rate yet (null)
  if (stats.some((s) => rate(s.rx_sec) === null || rate(s.tx_sec) === null)) {
    await new Promise((resolve) => setTimeout(resolve, FIRST_RATE_WAIT_MS));
    stats = await (await systemInformation()).networkStats(names);
  }
  const network: NetworkMetrics[] = [];
  for (const s of stats) {
    const rx = rate(s.rx_sec);
    const tx = rate(s.tx_sec);
    // an interface that could not be read twice has no rate to report
    if (rx !== null && tx !== null) network.push({ iface: s.iface, rxBytesPerSecond: rx, txBytesPerSecond: tx });
  }
  return network;
}

/** The directory a path's filesystem is mounted on: the highest ancestor on the same device. */
async function mountPointOf(path: string): Promise<string> {
  let dir = await realpath(path);
  const device = (await stat(dir)).dev;
  while (dir !== dirname(dir) && (await stat(dirname(dir))).dev === device) dir = dirname(dir);
  return dir;
}

/** For a data dir on a filesystem `df` does not list (a tmpfs, say). */
async function statDisk(mount: string): Promise<DiskMetrics> {
  const s = await statfs(mount);
  return { mount, totalBytes: s.blocks * s.bsize, usedBytes: (s.blocks - s.bfree) * s.bsize };
}

function rate(value: number | null): number | null {
  return value !== null && value !== undefined && Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
