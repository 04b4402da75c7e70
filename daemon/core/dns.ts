// DNS provider connections (a system setting: credentials sealed at rest by the store, never
// returned; responses say only whether each provider is connected) and the A record of a custom
// domain, written through the connected provider's API to point at the public IPv4.
//
// The provider's account holds the operator's zones, so a key that does not cover every project
// may write only names of its own project: a generated hostname of one of the project's services
// (`<service>-<project>.<rootDomain>`) or a name under one (`api.web-shop.apps.example.com`), never
// a zone's apex, never a record that already answers (integrations/dns/existing.ts). Any other
// name (`mail.example.com`, a custom domain in the operator's zones) is 403: a key over all
// projects writes it. A record Berth created is recorded and removed when its domain goes (or its
// hostname changes); records Berth found or repointed are never removed.
import type { DnsProviderId } from './ports/dns-provider.js';
import { DNS_PROVIDER_IDS } from './ports/dns-provider.js';
import { visibleService, type Access } from './access.js';
import { checkBaseUrl } from './ai-providers.js';
import type { Clock } from './clock.js';
import { Forbidden, InvalidInput, NotFound } from './errors.js';
import { generatedHostnameOf, rootDomainOf } from './generated-names.js';
import type { DomainRecord } from './records.js';
import type { Store } from './ports/store.js';
import type { DnsProviderStatus, DnsRecordResult, Domain } from '../../shared/types.js';
import { domainView } from './views.js';
import { NO_EVENTS, type EventSink } from './events.js';

export type { DnsProviderId, DnsProviderStatus, DnsRecordResult };
export type { DnsProviderRecord } from './ports/dns-provider-repo.js';
import type { DnsProviderFactory } from './ports/dns-provider-repo.js';

const DNS_PROVIDER_NAMES: Record<DnsProviderId, string> = { cloudflare: 'Cloudflare', namecheap: 'Namecheap', spaceship: 'Spaceship' };

const DNS_DEFAULT_BASE_URLS: Record<DnsProviderId, string> = {
  cloudflare: 'https://api.cloudflare.com/client/v4',
  namecheap: 'https://api.namecheap.com/xml.response',
  spaceship: 'https://spaceship.dev/api/v1',
};

/** Credentials as given, per provider (already shape-checked at the edge), with an optional baseUrl. */
export interface DnsProviderPut {
  baseUrl?: string | undefined;
  credentials: Record<string, string | undefined>;
}

function isDnsProviderId(id: string): id is DnsProviderId {
  return (DNS_PROVIDER_IDS as readonly string[]).includes(id);
}

export function requireDnsProviderId(id: string): DnsProviderId {
  if (!isDnsProviderId(id)) throw new InvalidInput(`unknown DNS provider "${id.slice(0, 60)}": use one of ${DNS_PROVIDER_IDS.join(', ')}`, 'unknown_dns_provider');
  return id;
}

export class DnsProviders {
  constructor(
    private store: Store,
    private clock: Clock,
    private factory: DnsProviderFactory,
    private publicIp: () => Promise<string>,
    private events: EventSink = NO_EVENTS,
  ) {}

  private changed(): void {
    this.events.publish({ type: 'settings', allProjects: true, data: { area: 'dns-providers' } });
  }

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
    this.changed();
    return { id, name: DNS_PROVIDER_NAMES[id], connected: true };
  }

  async delete(access: Access, rawId: string): Promise<void> {
    admin(access);
    const id = requireDnsProviderId(rawId);
    if (!(await this.store.dnsProviders.delete(id))) throw new NotFound(`${DNS_PROVIDER_NAMES[id]} is not connected`);
    this.changed();
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
    if (!access.allProjects) await this.requireOwnName(service.projectId, domain.hostname);
    const targetIp = await this.publicIp();
    // Only a key over all projects may repoint a record that already exists (409 otherwise) or write a zone's apex (403).
    const outcome = await this.factory(record).upsertA(domain.hostname, targetIp, { overwrite: access.allProjects, apex: access.allProjects });
    if (outcome.action === 'created') {
      await this.store.dnsProviders.recordCreated({
        domainId: domain.id,
        provider: id,
        hostname: domain.hostname,
        zone: outcome.zone,
        host: outcome.host,
        address: targetIp,
        createdAt: this.clock.now(),
      });
    }
    this.events.publish({
      type: 'domain-dns',
      projectId: service.projectId,
      data: { serviceId: service.id, projectId: service.projectId, domainId: domain.id, hostname: domain.hostname, action: 'pointed' },
    });
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

  /** A selected-projects key writes records only for its project's generated hostnames and names under them. */
  private async requireOwnName(projectId: string, hostname: string): Promise<void> {
    const root = await rootDomainOf(this.store);
    const host = hostname.toLowerCase();
    const own = (await this.store.services.list([projectId])).map((s) => generatedHostnameOf(s, root)).filter((h): h is string => h !== null);
    if (own.some((name) => host === name || host.endsWith(`.${name}`))) return;
    throw new Forbidden(
      `${hostname} is not under one of this project's own names (${own.length > 0 ? own.join(', ') : 'it has no generated hostname: no root domain is set'}); ` +
        'a key over all projects writes the DNS records of other names',
    );
  }

  /**
   * Removes the A records Berth created for these domains (being deleted, or renamed), through the
   * provider that created each; a record that now points elsewhere, and every other record, stays.
   * A provider that fails (or was disconnected) keeps its row, so nothing is forgotten; the domain change goes on.
   */
  async domainsGone(domains: readonly Pick<DomainRecord, 'id'>[]): Promise<void> {
    for (const created of await this.store.dnsProviders.createdFor(domains.map((d) => d.id))) {
      const record = await this.store.dnsProviders.get(created.provider);
      if (!record) continue; // the provider was disconnected: the row stays until it is back
      try {
        await this.factory(record).removeA(created.hostname, created.address);
        await this.store.dnsProviders.forgetCreated(created.domainId, created.provider);
      } catch {
        // the row stays: the record is not forgotten, and the domain change goes on
      }
    }
  }
}

function admin(access: Access): void {
  access.requireWrite();
  access.requireAllProjects('managing DNS providers');
}
