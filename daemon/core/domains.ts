// Custom domains: validated, lower-case, unique across the daemon, never on workers, never a name
// the daemon generates for someone else (generated-names.ts).
import type { Domain, ProxyResult } from '../../shared/types.js';
import { visibleService, type Access } from './access.js';
import type { Clock } from './clock.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import { generatedOwner } from './generated-names.js';
import { normalizeHostname } from './hostname.js';
import { newId } from './ids.js';
import type { ProxyPort } from './ports/proxy.js';
import type { DomainRecord, ServiceRecord } from './records.js';
import type { EventSink } from './events.js';
import type { Store } from './ports/store.js';
import { domainView } from './views.js';

/** Removes the DNS records Berth created for domains that go (core/dns.ts). */
export type DnsCleanup = (domains: readonly Pick<DomainRecord, 'id'>[]) => Promise<void>;

export class Domains {
  constructor(
    private store: Store,
    private clock: Clock,
    private proxy: ProxyPort,
    private events: EventSink,
    private dnsGone: DnsCleanup = async () => undefined,
  ) {}

  private announce(service: ServiceRecord, domain: DomainRecord, hostname: string, action: 'created' | 'updated' | 'deleted', proxy: ProxyResult): void {
    this.events.publish({ type: 'domain', projectId: service.projectId, data: { serviceId: service.id, projectId: service.projectId, domainId: domain.id, hostname, action, proxy } });
  }

  private async requireFree(hostname: string, exceptId: string | null, service: ServiceRecord, access: Access): Promise<void> {
    const existing = await this.store.domains.findByHostname(hostname);
    if (existing && existing.id !== exceptId) throw new Conflict(`hostname ${hostname} is already used by a service on this server`, 'hostname_taken');
    const generated = await generatedOwner(this.store, hostname, service.id, access.allProjects);
    if (generated) throw new Conflict(`hostname ${hostname} is ${generated}; it cannot be a custom domain`, 'hostname_taken');
  }

  /** A unique index backs the check above; a race between two requests still ends in a 409. */
  private async guardUnique<T>(hostname: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (this.store.isUniqueViolation(err)) throw new Conflict(`hostname ${hostname} is already used by a service on this server`, 'hostname_taken');
      throw err;
    }
  }

  async add(access: Access, serviceId: string, rawHostname: string): Promise<{ domain: Domain; proxy: ProxyResult }> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    if (service.runtimeMode === 'worker') throw new InvalidInput('workers accept no custom domains', 'worker_no_domains');
    const hostname = normalizeHostname(rawHostname);
    await this.requireFree(hostname, null, service, access);
    const now = this.clock.now();
    const record: DomainRecord = { id: newId(), serviceId: service.id, hostname, status: 'active', createdAt: now, updatedAt: now };
    await this.guardUnique(hostname, () => this.store.domains.insert(record));
    const proxy = await this.proxy.apply();
    this.announce(service, record, hostname, 'created', proxy);
    return { domain: domainView(record), proxy };
  }

  async update(access: Access, serviceId: string, domainId: string, rawHostname: string): Promise<ProxyResult> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    const domain = await this.store.domains.get(service.id, domainId);
    if (!domain) throw new NotFound('domain not found');
    const hostname = normalizeHostname(rawHostname);
    await this.requireFree(hostname, domain.id, service, access);
    await this.guardUnique(hostname, () => this.store.domains.update(domain.id, { hostname, updatedAt: this.clock.now() }));
    // the record Berth created was for the old name
    if (hostname !== domain.hostname) await this.dnsGone([domain]);
    const proxy = await this.proxy.apply();
    this.announce(service, domain, hostname, 'updated', proxy);
    return proxy;
  }

  async remove(access: Access, serviceId: string, domainId: string): Promise<ProxyResult> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    const domain = await this.store.domains.get(service.id, domainId);
    if (!domain) throw new NotFound('domain not found');
    await this.store.domains.delete(domain.id);
    await this.dnsGone([domain]);
    const proxy = await this.proxy.apply();
    this.announce(service, domain, domain.hostname, 'deleted', proxy);
    return proxy;
  }
}
