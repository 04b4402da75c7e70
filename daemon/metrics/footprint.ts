// Berth's own footprint: the daemon's resident size and CPU, Caddy's (the process listening on
// Caddy's admin address, found through /proc: its socket's inode, then the process holding it), and
// the store's files on disk. CPU is averaged since the previous reading (the first: since the process started).
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProcessFootprint } from '../../shared/types.js';
import type { FootprintProbe } from '../core/ports/metrics-history.js';
import { DB_FILE } from '../store/open.js';

/** Linux's clock ticks per second and page size on the machines Berth runs on (x86-64 and arm64). */
const CLK_TCK = 100;
const PAGE_BYTES = 4096;

interface CpuReading {
  cpuMs: number;
  atMs: number;
}

function percentSince(previous: CpuReading | undefined, next: CpuReading): number | null {
  if (!previous || next.atMs <= previous.atMs) return null;
  return Math.round(((next.cpuMs - previous.cpuMs) / (next.atMs - previous.atMs)) * 10_000) / 100;
}

/** utime + stime (ms), the resident size and the start (ms since boot) of a process, from /proc/<pid>/stat. */
async function procStat(pid: number): Promise<{ cpuMs: number; rssBytes: number; startMs: number } | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces: the fields after it start past its ')'
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { cpuMs: (ticks * 1000) / CLK_TCK, rssBytes: Number(fields[21]) * PAGE_BYTES, startMs: (Number(fields[19]) * 1000) / CLK_TCK };
  } catch {
    return null;
  }
}

/** The pid of the process listening on a loopback TCP port, or null. */
async function listenerOf(port: number): Promise<number | null> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT, st 0A is LISTEN
      if (cols.length > 9 && cols[3] === '0A' && Number.parseInt(cols[1]!.split(':')[1] ?? '', 16) === port) inodes.add(cols[9]!);
    }
  }
  if (inodes.size === 0) return null;
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const fds = await readdir(`/proc/${entry}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1]!)) return Number(entry);
    }
  }
  return null;
}

/** Milliseconds since boot, from /proc/uptime. */
async function uptimeMs(): Promise<number | null> {
  const text = await readFile('/proc/uptime', 'utf8').catch(() => '');
  const seconds = Number(text.split(' ')[0]);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}

export function footprintProbe(deps: { dataDir: string; caddyAdmin: string }): FootprintProbe {
  let daemonPrevious: CpuReading | undefined;
  let caddy: { pid: number; previous?: CpuReading } | null = null;
  const adminPort = Number(new URL(deps.caddyAdmin).port || 80);
  return {
    async read() {
      const nowMs = Date.now();
      const usage = process.cpuUsage();
      const daemonNow = { cpuMs: (usage.user + usage.system) / 1000, atMs: nowMs };
      // the first reading averages since the process started
      daemonPrevious ??= { cpuMs: 0, atMs: nowMs - process.uptime() * 1000 };
      const daemon: ProcessFootprint = { rssBytes: process.memoryUsage.rss(), cpuPercent: percentSince(daemonPrevious, daemonNow) };
      daemonPrevious = daemonNow;
      let caddyFootprint: ProcessFootprint | null = null;
      let s = caddy ? await procStat(caddy.pid) : null;
      if (!s) {
        const pid = await listenerOf(adminPort);
        s = pid === null ? null : await procStat(pid);
        const bootMs = await uptimeMs();
        caddy = pid === null || s === null ? null : { pid, previous: bootMs === null ? undefined : { cpuMs: 0, atMs: nowMs - (bootMs - s.startMs) } };
      }
      if (caddy && s) {
        const reading = { cpuMs: s.cpuMs, atMs: nowMs };
        caddyFootprint = { rssBytes: s.rssBytes, cpuPercent: percentSince(caddy.previous, reading) };
        caddy.previous = reading;
      }
      let storeBytes = 0;
      for (const suffix of ['', '-wal', '-shm'])
        storeBytes += await stat(join(deps.dataDir, DB_FILE + suffix)).then(
          (st) => st.size,
          () => 0,
        );
      return { daemon, caddy: caddyFootprint, storeBytes };
    },
  };
}
