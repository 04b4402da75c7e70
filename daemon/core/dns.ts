// DNS provider connections (a system setting: credentials sealed at rest by the store, never
// returned; responses say only whether each provider is connected) and the A record of a custom
// domain, written through the connected provider's API to point at the public IPv4.
import type { DnsAction, DnsProvider, DnsProviderId } from './ports/dns-provider.js';
import { DNS_PROVIDER_IDS } from './ports/dns-provider.js';
import type { DnsProviderRecord } from './ports/dns-provider-repo.js';
import { visibleService, type Access } from './access.js';
import { checkBaseUrl } from './ai-providers.js';
import type { Clock } from './clock.js';
import { InvalidInput, NotFound } from './errors.js';
import type { Store } from './store.js';
import type { Domain } from '../../shared/types.js';
import { domainView } from './views.js';

export type { DnsProviderId };
export type { DnsProviderRecord, DnsProviderRepo } from './ports/dns-provider-repo.js';

export const DNS_PROVIDER_NAMES: Record<DnsProviderId, string> = { cloudflare: 'Cloudflare', namecheap: 'Namecheap', spaceship: 'Spaceship' };

export const DNS_DEFAULT_BASE_URLS: Record<DnsProviderId, string> = {
  cloudflare: 'https://api.cloudflare.com/client/v4',
  namecheap: 'https://api.namecheap.com/xml.response',
  spaceship: 'https://spaceship.dev/api/v1',
};

export interface DnsProviderStatus {
  id: DnsProviderId;
  name: string;
  connected: boolean;
}

export interface DnsRecordResult {
  provider: DnsProviderId;
  providerName: string;
  action: DnsAction;
  hostname: string;
  recordType: 'A';
  host: string;
  zone: string;
  targetIp: string;
}

/** Credentials as given, per provider (already shape-checked at the edge), with an optional baseUrl. */
export interface DnsProviderPut {
  baseUrl?: string | undefined;
  credentials: Record<string, string | undefined>;
}

export function isDnsProviderId(id: string): id is DnsProviderId {
  return (DNS_PROVIDER_IDS as readonly string[]).includes(id);
}

export function requireDnsProviderId(id: string): DnsProviderId {
  if (!isDnsProviderId(id)) throw new InvalidInput(`unknown DNS provider "${id.slice(0, 60)}": use one of ${DNS_PROVIDER_IDS.join(', ')}`, 'unknown_dns_provider');
  return id;
}

export type DnsProviderFactory = (record: DnsProviderRecord) => DnsProvider;

export class DnsProviders {
  constructor(
    private store: Store,
    private clock: Clock,
    private factory: DnsProviderFactory,
    private publicIp: () => Promise<string>,
  ) {}

  async list(access: Access): Promise<DnsProviderStatus[]> {
    access.requireAllProjects('reading DNS provider settings');
    const connected = new Set((await this.store.dnsProviders.list()).map((r) => r.id));
    return DNS_PROVIDER_IDS.map((id) => ({ id, name: DNS_PROVIDER_NAMES[id], connected: connected.has(id) }));
  }

  async put(access: Access, rawId: string, input: DnsProviderPut): Promise<DnsProviderStatus> {
    admin(access);
    const id = requireDnsProviderId(rawId);
    const baseUrl = input.baseUrl !== undefined ? checkBaseUrl(input.baseUrl) : DNS_DEFAULT_BASE_URLS[id];
    const existing = await this.store.dnsProviders.get(id);
    const now = this.clock.now();
    await this.store.dnsProviders.upsert({ id, baseUrl, credentials: input.credentials, createdAt: existing?.createdAt ?? now, updatedAt: now });
    return { id, name: DNS_PROVIDER_NAMES[id], connected: true };
  }

  async delete(access: Access, rawId: string): Promise<void> {
    admin(access);
    const id = requireDnsProviderId(rawId);
    if (!(await this.store.dnsProviders.delete(id))) throw new NotFound(`${DNS_PROVIDER_NAMES[id]} is not connected`);
  }

  /** Creates or updates the A record of a domain's hostname so it points at the public IPv4. */
  async pointDomain(access: Access, serviceId: string, domainId: string, rawProviderId: string): Promise<{ result: DnsRecordResult; domain: Domain }> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    const domain = await this.store.domains.get(service.id, domainId);
    if (!domain) throw new NotFound('domain not found');
    const id = requireDnsProviderId(rawProviderId);
    const record = await this.store.dnsProviders.get(id);
    if (!record) throw new InvalidInput(`${DNS_PROVIDER_NAMES[id]} is not connected: add its credentials with PUT /api/system/dns-providers/${id}`, 'dns_provider_not_connected');
    const targetIp = await this.publicIp();
    // Only a key over all projects may repoint a record that already exists (409 otherwise).
    const outcome = await this.factory(record).upsertA(domain.hostname, targetIp, { overwrite: access.allProjects });
    return {
      result: {
        provider: id,
        providerName: DNS_PROVIDER_NAMES[id],
        action: outcome.action,
        hostname: domain.hostname,
        recordType: 'A',
        host: outcome.host,
        zone: outcome.zone,
        targetIp,
      },
      domain: domainView(domain),
    };
  }
}

function admin(access: Access): void {
  access.requireWrite();
  access.requireAllProjects('managing DNS providers');
}
