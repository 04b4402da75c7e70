// The server's address: what generated URLs and DNS records name, and the subject of the API's
// certificate when Caddy serves the API over HTTPS with its internal CA. It is the `publicIp`
// setting when the user set one, else the address detected on the first start and kept
// (daemon/public-ip.ts): nothing but the user changes it, because a new address means a new
// certificate, and every client pinned to the old one is locked out until it re-pins. Changing it
// answers the fingerprint of the certificate actually served for the new address, so the user can
// hand it to those clients. Reading needs a key over all projects; changing it a write key over all.
import { isIPv4 } from 'node:net';
import type { ServerAddress, ServerAddressChange } from '../../shared/types.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { InvalidInput } from './errors.js';
import type { EventSink } from './events.js';
import type { ApiCertificatePort } from './ports/api-certificate.js';
import type { ProxyPort } from './ports/proxy.js';
import type { SettingsRepo } from './ports/store.js';

/** The setting the proxy, DNS records and generated URLs read: keep the key exactly. */
export const PUBLIC_IP_SETTING = 'publicIp';

/** How long a change waits for Caddy to serve the certificate for the new address (it issues one in well under a second). */
const ISSUE_WAIT_MS = 30_000;
/** A read waits less: the certificate exists already unless a change is still being applied. */
const READ_WAIT_MS = 3_000;

/** Addresses no client can reach this server at, with the reason given in the 400. */
const UNREACHABLE: [RegExp, string][] = [
  [/^0\./, '0.0.0.0/8 means "this host" and no client can connect to it'],
  [/^127\./, 'a loopback address is this machine itself for every client'],
  [/^169\.254\./, 'a link-local address does not leave its network segment'],
  [/^(22[4-9]|23\d)\./, 'a multicast address is not one host'],
  [/^(24\d|25[0-5])\./, 'addresses from 240.0.0.0 on are reserved (255.255.255.255 is broadcast)'],
];

/** The address a client reaches this server at: an IPv4, not loopback, 0.0.0.0, link-local, multicast or reserved. */
export function checkServerAddress(raw: string, field = 'address'): string {
  const ip = raw.trim();
  if (!isIPv4(ip)) throw new InvalidInput(`${field} must be an IPv4 address like 203.0.113.10, got "${raw.slice(0, 64)}"`);
  for (const [range, why] of UNREACHABLE) if (range.test(ip)) throw new InvalidInput(`${field} ${ip} cannot be the server's address: ${why}`);
  return ip;
}

export class ServerAddresses {
  constructor(
    private readonly d: {
      settings: SettingsRepo;
      clock: Clock;
      /** The address detected on the first start and kept. */
      detectedIp: string;
      proxy: ProxyPort;
      certificate: ApiCertificatePort;
      events: EventSink;
    },
  ) {}

  async get(access: Access): Promise<ServerAddress> {
    access.requireAllProjects("reading the server's address");
    const view = await this.view();
    return { ...view, fingerprint: await this.d.certificate.fingerprintFor(view.address, READ_WAIT_MS), apiUrl: this.d.certificate.urlFor(view.address) };
  }

  async set(access: Access, input: { address: string }): Promise<ServerAddressChange> {
    access.requireWrite();
    access.requireAllProjects("changing the server's address");
    const address = checkServerAddress(input.address);
    const before = await this.view();
    const previousFingerprint = await this.d.certificate.fingerprintFor(before.address, READ_WAIT_MS);
    if (before.address === address && !before.detected) {
      return {
        address: { ...before, fingerprint: previousFingerprint, apiUrl: this.d.certificate.urlFor(address) },
        changed: false,
        previousFingerprint,
        proxy: { ok: true, detail: 'the address was already this one: nothing changed' },
      };
    }
    // the detected address made explicit keeps the certificate (same subject), and is no longer re-read
    await this.d.settings.set(PUBLIC_IP_SETTING, address, this.d.clock.now());
    const proxy = await this.d.proxy.apply();
    // a configuration Caddy refused serves the old certificate still: nothing to wait for
    const fingerprint = proxy.ok ? await this.d.certificate.fingerprintFor(address, ISSUE_WAIT_MS) : null;
    // after the certificate is served, so a view refetched on these events shows the new fingerprint
    this.d.events.publish({ type: 'settings', allProjects: true, data: { area: 'system' } });
    this.d.events.publish({ type: 'settings', allProjects: true, data: { area: 'address' } });
    return { address: { ...(await this.view()), fingerprint, apiUrl: this.d.certificate.urlFor(address) }, changed: before.address !== address, previousFingerprint, proxy };
  }

  private async view(): Promise<Omit<ServerAddress, 'fingerprint' | 'apiUrl'>> {
    const set = await this.d.settings.get(PUBLIC_IP_SETTING);
    return { address: set ?? this.d.detectedIp, detected: set === null, detectedAddress: this.d.detectedIp };
  }
}
