// Where a redis import may connect. The redis import runs in the daemon, on the host: from there
// 127.0.0.1 reaches every tenant's database and app (they are published on loopback), and the
// host reaches every container's bridge address, past the per-project networks. A tenant's own
// containers reach neither. So a key over selected projects may import only from what its apps
// could reach too: another machine, or a database of its own projects through its host port.
// The source's name is resolved once here and the import connects to that address, so a name
// that resolves elsewhere the second time (DNS rebinding) changes nothing. Names are asked of DNS
// with c-ares (not getaddrinfo, whose lookups hold libuv's few threads, which SQLite and the
// file system share: names that never answer must not stall the daemon); /etc/hosts is not read.
// A key over all projects (the server's owner) may import from anywhere, this host included.
// PostgreSQL imports need no such check: pg_dump runs inside the tenant's own database container.
import type Docker from 'dockerode';
import { Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Forbidden, InvalidInput } from '../core/errors.js';
import type { ImportReach } from '../core/ports/backup-jobs.js';
import { redisEndpoint } from '../databases/source-url.js';

export interface ReachFacts {
  /** Every address the name resolves to. */
  lookup(hostname: string): Promise<string[]>;
  /** The host's own interface addresses. */
  hostAddresses(): string[];
  /** Every Docker network's subnets (CIDR), where containers live. */
  dockerSubnets(): Promise<string[]>;
}

/** Always refused for a key over selected projects: nothing a tenant's container reaches. */
const NEVER = [
  ['0.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
] as const;
/** This host itself: allowed only on a host port of a database of the key's own projects. */
const LOOPBACK = [
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
] as const;

/**
 * The address the import connects to: null for a key over all projects (the URL's host as given),
 * else the checked address of the source. Throws 400 when the name does not resolve, 403 when it
 * names this host or one of its containers.
 */
export async function pinSourceAddress(url: URL, reach: ImportReach, facts: ReachFacts): Promise<string | null> {
  if (reach.anywhere) return null;
  const { host: hostname, port } = redisEndpoint(url);
  return pinReachableAddress(hostname, port, reach, facts, {
    subject: 'sourceUrl',
    rule: "a key over selected projects imports only from another server, or from a database of its own projects on this server's host port",
  });
}

/** How a refusal reads: whose host it is, and the rule. */
export interface ReachWording {
  /** e.g. `sourceUrl` or `repoUrl`: "<subject>'s host ..." */
  subject: string;
  rule: string;
}

/**
 * The one reach check, shared by everything that connects from the daemon to an address a key
 * over selected projects chose (redis imports, git clones): the address to connect to, resolved
 * once and checked. Throws 400 when the name does not resolve, 403 when it names this host (other
 * than one of `ownHostPorts`), one of its containers or a link-local address.
 */
export async function pinReachableAddress(hostname: string, port: number, reach: ImportReach & { anywhere: false }, facts: ReachFacts, wording: ReachWording): Promise<string> {
  const addresses = isIP(hostname) ? [hostname] : await resolve(hostname, facts, wording.subject);
  const never = new BlockList();
  for (const [net, prefix, type] of NEVER) never.addSubnet(net, prefix, type);
  for (const subnet of await facts.dockerSubnets()) addCidr(never, subnet);
  const self = new BlockList();
  for (const [net, prefix, type] of LOOPBACK) self.addSubnet(net, prefix, type);
  for (const address of facts.hostAddresses()) self.addAddress(unmapped(address), isIP(unmapped(address)) === 6 ? 'ipv6' : 'ipv4');
  for (const raw of addresses) {
    const address = unmapped(raw);
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    const onHost = self.check(address, type);
    if (never.check(address, type) && !onHost) throw refused(hostname, address, 'one of its containers or a link-local address', wording);
    if (onHost && !reach.ownHostPorts.has(port)) throw refused(hostname, address, 'this server', wording);
  }
  return unmapped(addresses[0]!);
}

function refused(hostname: string, address: string, what: string, wording: ReachWording): Forbidden {
  const via = hostname === address ? '' : ` (${address})`;
  return new Forbidden(`${wording.subject}'s host ${hostname}${via} is ${what}: ${wording.rule}`);
}

async function resolve(hostname: string, facts: ReachFacts, subject: string): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await facts.lookup(hostname);
  } catch (err) {
    throw new InvalidInput(`${subject}'s host ${hostname} does not resolve (${(err as Error).message})`);
  }
  if (addresses.length === 0) throw new InvalidInput(`${subject}'s host ${hostname} does not resolve (no address)`);
  return addresses;
}

/** `::ffff:127.0.0.1` is 127.0.0.1 to the kernel: check it as one. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

function addCidr(list: BlockList, cidr: string): void {
  const [net, prefix] = cidr.split('/');
  const type = isIP(net ?? '');
  if (!type || !prefix || !/^\d{1,3}$/.test(prefix)) return;
  list.addSubnet(net!, Number(prefix), type === 6 ? 'ipv6' : 'ipv4');
}

/** The facts of this host: its resolver, its interfaces and the Engine's networks. */
export function hostReachFacts(docker: Docker): ReachFacts {
  return {
    lookup: async (hostname) => {
      // at most 2 tries of 2 s per server
      const resolver = new Resolver({ timeout: 2000, tries: 2 });
      const answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
      const found = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
      const failed = answers.find((a) => a.status === 'rejected');
      if (found.length === 0 && failed) throw failed.reason as Error;
      return found;
    },
    hostAddresses: () => Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)),
    dockerSubnets: async () => (await docker.listNetworks()).flatMap((n) => (n.IPAM?.Config ?? []).map((c) => c.Subnet ?? '').filter(Boolean)),
  };
}
