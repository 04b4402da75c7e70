// A fresh VPS, simulated: a container of berth-test/vps (test/setup/images/vps) that boots systemd
// as PID 1 with Debian's docker.io inside (../shared/ENVIRONMENT.md, "A fresh VPS, simulated").
// It sits on a network of its own at a fixed address, so a reboot (`docker restart`: systemd shuts
// down and boots again) keeps the address a pinned client connects to, as a real server's would.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIND_OPTIONS, type ExecResult, execIn } from './dind.js';
import { docker, requireDocker } from './docker.js';
import { REPO_ROOT } from './repo-root.js';
import { until } from './wait.js';

const VPS_LABEL = 'dev.berth.test.vps';
const NETWORK = 'berth-test-vps';
const SUBNET = '10.213.7.0/24';
/** A second network card's network (a server with two addresses: `--address` picks one). */
const SECOND_NETWORK = 'berth-test-vps-2';

export interface Vps {
  name: string;
  /** Its address on the VPS network: the address of its network card, inside and out. */
  address: string;
  /** `bash -c script` as root in the VPS, to its end; `input` goes to its stdin. */
  sh(script: string, timeoutMs?: number, input?: string): Promise<ExecResult>;
  /** Like `sh`, but throws with the output when the script does not exit 0; its stdout, trimmed. */
  run(script: string, timeoutMs?: number): Promise<string>;
  /** Copies a file of this machine into the VPS. */
  copyIn(path: string, dir: string): void;
  /** Copies a file of the VPS out to a directory of this machine. */
  copyOut(path: string, dir: string): void;
  /** `docker save ref | docker load` into the VPS's own Engine (no registry is reachable). */
  loadImage(ref: string): void;
  /** Plugs a second network card in: 10.213.8.<host>; its address. */
  addNetworkCard(host: number): string;
  /** `docker restart`: systemd stops every unit, the container stops, and it boots again. */
  reboot(): Promise<void>;
  remove(): void;
}

/** Builds (or finds) berth-test/vps; its hashed reference. */
function requireVpsImage(): string {
  requireDocker();
  const res = spawnSync('bash', [join(REPO_ROOT, 'test/setup/db-images.sh'), 'vps'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`VPS image setup failed:\n${res.stderr}\n${res.stdout}`);
  return res.stdout.trim();
}

async function booted(name: string): Promise<void> {
  // `degraded` is a booted system with a failed unit: the suite asserts Berth's units itself
  await until(`systemd in ${name} to finish booting`, async () => /^(running|degraded)$/.test((await execIn(name, ['systemctl', 'is-system-running'], 10_000)).stdout.trim()), 120_000, 500);
}

/**
 * On a cgroup v1 host whose /sys/fs/cgroup (a tmpfs) leaves some enabled controllers unmounted, as
 * these machines do (hugetlb, perf_event, net_cls/net_prio): mounts them, as a systemd host would.
 * Without it, the VPS's systemd mounts them through the host's cgroup tree, which binds them to a
 * hierarchy kernel-wide, and the host's dockerd, which finds no mount for them, can no longer read
 * any container's stats ("cgroups: cannot find cgroup mount destination": 0 B in `docker stats`).
 */
function mountMissingCgroupControllers(): void {
  const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
  const root = mountinfo.find((l) => l.split(' ')[4] === '/sys/fs/cgroup');
  if (!root || !root.includes(' - tmpfs ')) return; // cgroup v2, or a layout this does not know
  const mounted = new Set(mountinfo.filter((l) => l.includes(' - cgroup ')).flatMap((l) => l.split(' - cgroup ')[1]!.split(' ')[1]!.split(',')));
  const rows = readFileSync('/proc/cgroups', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'))
    .filter((f) => f.length === 4 && f[3] === '1');
  const pairs: Record<string, string> = { cpu: 'cpu,cpuacct', cpuacct: 'cpu,cpuacct', net_cls: 'net_cls,net_prio', net_prio: 'net_cls,net_prio' };
  const groups = new Set<string>();
  for (const [name, hierarchy] of rows as [string, string][]) {
    if (mounted.has(name)) continue;
    // bound already (by an earlier VPS): the controllers sharing its hierarchy mount together
    const together = hierarchy !== '0' ? rows.filter((r) => r[1] === hierarchy).map((r) => r[0]!) : (pairs[name]?.split(',') ?? [name]);
    groups.add(together.filter((c) => !mounted.has(c) || c === name).join(','));
  }
  for (const group of groups) {
    const dir = `/sys/fs/cgroup/${group}`;
    if (!existsSync(dir)) {
      execFileSync('mount', ['-o', 'remount,rw', '/sys/fs/cgroup']);
      try {
        mkdirSync(dir);
      } finally {
        execFileSync('mount', ['-o', 'remount,ro', '/sys/fs/cgroup']);
      }
    }
    execFileSync('mount', ['-t', 'cgroup', '-o', group, 'cgroup', dir]);
  }
}

/** Removes every VPS container (with its inner /var/lib/docker) and the VPS network. */
export function removeAllVps(): void {
  const ids = docker('ps', '-aq', '--filter', `label=${VPS_LABEL}`).split('\n').filter(Boolean);
  if (ids.length > 0) spawnSync('docker', ['rm', '-f', '-v', ...ids], { stdio: 'ignore' });
  for (const net of [NETWORK, SECOND_NETWORK]) spawnSync('docker', ['network', 'rm', net], { stdio: 'ignore' });
}

/** Boots `berth-test-vps-<suffix>` at 10.213.7.<host> and waits for systemd and its Docker Engine. */
export async function startVps(suffix: string, host: number): Promise<Vps> {
  const image = requireVpsImage();
  mountMissingCgroupControllers();
  const name = `berth-test-vps-${suffix}`;
  const address = `10.213.7.${host}`;
  spawnSync('docker', ['rm', '-f', '-v', name], { stdio: 'ignore' });
  if (spawnSync('docker', ['network', 'inspect', NETWORK], { stdio: 'ignore' }).status !== 0) docker('network', 'create', '--subnet', SUBNET, '--label', `${VPS_LABEL}=1`, NETWORK);
  docker(
    'run',
    '-d',
    '--name',
    name,
    '--hostname',
    `vps-${suffix}`,
    '--label',
    `${VPS_LABEL}=1`,
    '--network',
    NETWORK,
    '--ip',
    address,
    ...DIND_OPTIONS,
    '--tmpfs',
    '/run',
    '--tmpfs',
    '/run/lock',
    image,
  );
  await booted(name);
  const sh = (script: string, timeoutMs?: number, input?: string) => execIn(name, ['bash', '-c', script], timeoutMs, input);
  const vps: Vps = {
    name,
    address,
    sh,
    run: async (script, timeoutMs) => {
      const r = await sh(script, timeoutMs);
      if (r.status !== 0) throw new Error(`in ${name}, \`${script}\` exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
      return r.stdout.trim();
    },
    copyIn: (path, dir) => {
      docker('exec', name, 'mkdir', '-p', dir);
      docker('cp', path, `${name}:${dir}/`);
    },
    copyOut: (path, dir) => {
      mkdirSync(dir, { recursive: true });
      docker('cp', `${name}:${path}`, `${dir}/`);
    },
    loadImage: (ref) => {
      const r = spawnSync('bash', ['-c', `docker save "$1" | docker exec -i "$2" docker load`, '_', ref, name], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`loading ${ref} into ${name} failed:\n${r.stderr}`);
    },
    addNetworkCard: (host) => {
      if (spawnSync('docker', ['network', 'inspect', SECOND_NETWORK], { stdio: 'ignore' }).status !== 0)
        docker('network', 'create', '--subnet', '10.213.8.0/24', '--label', `${VPS_LABEL}=1`, SECOND_NETWORK);
      docker('network', 'connect', '--ip', `10.213.8.${host}`, SECOND_NETWORK, name);
      return `10.213.8.${host}`;
    },
    reboot: async () => {
      docker('restart', '-t', '60', name);
      await booted(name);
    },
    remove: () => {
      spawnSync('docker', ['rm', '-f', '-v', name], { stdio: 'ignore' });
    },
  };
  await until(`the Docker Engine in ${name}`, async () => (await sh('docker info --format "{{.Driver}}"', 10_000)).stdout.trim() === 'vfs', 60_000, 500);
  return vps;
}

/**
 * How Caddy reaches apps on the VPS, in one line: the Engine's daemon.json, how many docker-proxy
 * processes run, and whether the loopback guard (installers/berth-firewall.sh) is in.
 */
export async function enginePath(vps: Vps): Promise<string> {
  const daemonJson = JSON.stringify(JSON.parse(await vps.run('cat /etc/docker/daemon.json')));
  const proxies = await vps.run('pgrep -c docker-proxy || true');
  const guarded = (await vps.run('iptables -w -t raw -S PREROUTING')).includes('berth-loopback-guard');
  return `${daemonJson}, ${proxies} docker-proxy, ${guarded ? 'guarded' : 'unguarded'}`;
}

/** A mocha afterEach hook: after a failed test, the tails of the install log and of berth's and Caddy's journals. */
export function printLogsOnFailure(vps: () => Vps | undefined) {
  return async function (this: Mocha.Context): Promise<void> {
    const v = vps();
    if (this.currentTest?.state !== 'failed' || !v) return;
    const tail = await v.sh('tail -n 20 /var/log/berth-install.log; journalctl -u berth -n 30 --no-pager; journalctl -u caddy -n 10 --no-pager');
    console.log(tail.stdout.replace(/^/gm, '      '));
  };
}

/** `bash /root/current/install.sh <args>` on the VPS (5 minutes at most), with how long it took. */
export async function runInstaller(vps: Vps, ...args: string[]): Promise<ExecResult & { seconds: number }> {
  const t0 = Date.now();
  const r = await vps.sh(`bash /root/current/install.sh ${args.join(' ')}`, 300_000);
  return { ...r, seconds: (Date.now() - t0) / 1000 };
}
