// Where notification channels may send: never to this host (loopback) or link-local addresses
// (the cloud metadata service) unless the system setting allowPrivateNotifyTargets says so, and
// never to Caddy's admin API, setting or not (a POST there rewrites the proxy's configuration).
// Checked when a channel is created or its target changes (400), and again just before each send,
// on every address the name resolves to then (a name may point elsewhere later).
import { addressClass, isLocalhostName, unmappedAddress } from './address-class.js';
import { InvalidInput } from './errors.js';
import type { ChannelConfig } from './ports/notice-sender.js';
import type { SettingsRepo } from './ports/store.js';
import type { Lookup } from './ports/lookup.js';

const ALLOW_PRIVATE_NOTIFY_TARGETS = 'allowPrivateNotifyTargets';

/** A refused target: the sender does not retry it. */
export class NotifyTargetRefused extends InvalidInput {}

export class NotifyTargets {
  constructor(
    private settings: SettingsRepo,
    private lookup: Lookup,
    /** Caddy's admin API (config.caddyAdmin), e.g. http://127.0.0.1:2019. */
    private caddyAdmin: string,
  ) {}

  async allowed(): Promise<boolean> {
    return (await this.settings.get(ALLOW_PRIVATE_NOTIFY_TARGETS)) === 'true';
  }

  /** The write for a patch of the setting (a boolean; false deletes the stored value). */
  static write(value: boolean): [string, string | null] {
    return [ALLOW_PRIVATE_NOTIFY_TARGETS, value ? 'true' : null];
  }

  /**
   * Throws NotifyTargetRefused when the channel's target is not allowed now. A name that does not
   * resolve is kept when saving (DNS may be down for a while) and fails a send like any other
   * network error (retried); whatever it resolves to when sending is checked then.
   */
  async check(config: ChannelConfig, when: 'saving' | 'sending'): Promise<void> {
    const { host, port } = targetOf(config);
    const allowed = await this.allowed();
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch (err) {
      if (when === 'saving') return;
      throw err;
    }
    const caddy = await this.caddyAddresses();
    for (const address of addresses) {
      const kind = addressClass(address);
      const via = unmappedAddress(host) === address ? '' : ` (${address})`;
      if (caddy && port === caddy.port && (caddy.addresses.has(address) || (kind === 'loopback' && caddy.local))) {
        throw new NotifyTargetRefused(`the channel's host ${host}:${port}${via} is Caddy's admin API: notifications are never sent there`, 'notify_target_refused');
      }
      if (kind !== 'public-or-private' && !allowed) {
        const what = kind === 'loopback' ? 'this server (loopback)' : 'a link-local address (cloud metadata lives there)';
        throw new NotifyTargetRefused(`the channel's host ${host}${via} is ${what}: refused unless the system setting allowPrivateNotifyTargets is true`, 'notify_target_refused');
      }
    }
  }

  private async resolve(host: string): Promise<string[]> {
    const bare = unmappedAddress(host);
    if (isLocalhostName(bare)) return ['127.0.0.1', '::1'];
    let addresses: string[];
    try {
      addresses = (await this.lookup(bare)).map(unmappedAddress);
    } catch (err) {
      throw new Error(`the channel's host ${host} does not resolve (${(err as { code?: string }).code ?? (err as Error).message})`, { cause: err });
    }
    if (addresses.length === 0) throw new Error(`the channel's host ${host} does not resolve (no address)`);
    return addresses;
  }

  private async caddyAddresses(): Promise<{ port: number; addresses: Set<string>; local: boolean } | null> {
    let url: URL;
    try {
      url = new URL(this.caddyAdmin);
    } catch {
      return null;
    }
    const host = unmappedAddress(url.hostname);
    const addresses = new Set(await this.resolve(host).catch(() => [] as string[]));
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    // listening on this host (loopback or every address): any loopback address on its port is it
    const local = [...addresses].some((a) => addressClass(a) === 'loopback');
    return { port, addresses, local };
  }
}

function targetOf(config: ChannelConfig): { host: string; port: number } {
  if (config.type === 'email') return { host: config.host, port: config.port };
  const url = new URL(config.url);
  return { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}
