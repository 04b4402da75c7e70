// The server's public IPv4 as far as this host can tell without asking anyone outside: the
// `publicIp` setting when the user set one, else the address detected on the first start and kept
// (`detectedIp`): a later start never picks another one by itself. Every pinned client holds a
// certificate issued for this address, and a reboot in which Docker's bridges came up before the
// network card once made the daemon take 172.18.0.1 as the server's address and re-issue it.
// Detection takes the interface of the default route, never loopback, link-local or a virtual
// interface (Docker's bridges and veths, Berth's project bridges, VPNs, libvirt, CNI).
import { readFileSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import type { SettingsRepo } from './core/ports/store.js';

/** The setting that keeps the address detected on the first start. */
const DETECTED_SETTING = 'detectedIp';

/** Interfaces that are never the server's own address: bridges, veths, tunnels, VPNs, overlays. */
const VIRTUAL_INTERFACE = /^(docker|br-|brth|veth|virbr|vnet|cni|flannel|cali|vxlan|kube|weave|lxc|lxd|tun|tap|wg|tailscale|zt|nebula|podman|ovs)/;

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

/** The default routes' interfaces from /proc/net/route's text, lowest metric first. */
export function defaultRouteInterfaces(routeTable: string): string[] {
  const rows: { iface: string; metric: number }[] = [];
  for (const line of routeTable.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // Iface Destination Gateway Flags RefCnt Use Metric Mask ...: destination and mask 0 = default; flag 0x1 = up
    if (f.length < 8 || f[1] !== '00000000' || f[7] !== '00000000' || (Number.parseInt(f[3]!, 16) & 1) === 0) continue;
    rows.push({ iface: f[0]!, metric: Number(f[6]) || 0 });
  }
  return rows.sort((a, b) => a.metric - b.metric).map((r) => r.iface);
}

function usableIpv4(addrs: readonly NetworkInterfaceInfo[] | undefined): string | null {
  for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
  return null;
}

/** The address of the default route's interface; else of the first physical-looking one; else loopback. */
export function detectServerIpv4(routeTable: string, interfaces: Interfaces): string {
  for (const name of defaultRouteInterfaces(routeTable)) {
    if (VIRTUAL_INTERFACE.test(name)) continue;
    const ip = usableIpv4(interfaces[name]);
    if (ip) return ip;
  }
  for (const [name, addrs] of Object.entries(interfaces)) {
    if (VIRTUAL_INTERFACE.test(name)) continue;
    const ip = usableIpv4(addrs);
    if (ip) return ip;
  }
  return '127.0.0.1';
}

function readRouteTable(): string {
  try {
    return readFileSync('/proc/net/route', 'utf8');
  } catch {
    return '';
  }
}

/** This host's address now (not kept): for a development daemon's messages and first start. */
function detectInterfaceIpv4(): string {
  return detectServerIpv4(readRouteTable(), networkInterfaces());
}

/**
 * The detected address, kept from the first start on: read once at start (the store has it), or
 * detected and stored when this is the first start. Only the user changes the address afterwards
 * (the `publicIp` setting: `berth server set-address`, the console, `install.sh --address`).
 */
export async function keptDetectedIp(settings: SettingsRepo): Promise<string> {
  const kept = await settings.get(DETECTED_SETTING);
  if (kept) return kept;
  const now = detectInterfaceIpv4();
  await settings.set(DETECTED_SETTING, now, new Date().toISOString());
  return now;
}

export function publicIpSource(settings: SettingsRepo, detected: string): () => Promise<string> {
  return async () => (await settings.get('publicIp')) ?? detected;
}
