// What kind of address an IP is, for checks on where the daemon connects: this host itself
// (loopback, and the unspecified address, which the kernel connects to this host) and link-local
// (169.254/16 holds the cloud metadata service). One place for these ranges.
import { BlockList, isIP } from 'node:net';

export type AddressClass = 'loopback' | 'link-local' | 'public-or-private';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addSubnet('0.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addAddress('::', 'ipv6');
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

/** `::ffff:127.0.0.1` is 127.0.0.1 to the kernel: check it as one. Brackets of a URL's IPv6 host go. */
export function unmappedAddress(address: string): string {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  return mapped ? mapped[1]! : bare;
}

/** The class of an IP address (a name is not an address: resolve it first). */
export function addressClass(raw: string): AddressClass {
  const address = unmappedAddress(raw);
  const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(address, type)) return 'loopback';
  if (LINK_LOCAL.check(address, type)) return 'link-local';
  return 'public-or-private';
}

/** Names that are this host whatever DNS says (RFC 6761). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
