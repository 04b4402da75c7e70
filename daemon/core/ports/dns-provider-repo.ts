// DNS provider connections as the store keeps them (daemon/store/dns-providers-repo.ts implements it).
import type { DnsProvider, DnsProviderId } from './dns-provider.js';

export interface DnsProviderRecord {
  id: DnsProviderId;
  baseUrl: string;
  /** Plain text in memory; the store seals the whole object at rest. */
  credentials: Record<string, string | undefined>;
  createdAt: string;
  updatedAt: string;
}

/** An A record Berth created (not one it found or repointed): removed when its domain goes. */
interface CreatedDnsRecord {
  domainId: string;
  provider: DnsProviderId;
  hostname: string;
  zone: string;
  host: string;
  address: string;
  createdAt: string;
}

export interface DnsProviderRepo {
  list(): Promise<DnsProviderRecord[]>;
  get(id: DnsProviderId): Promise<DnsProviderRecord | null>;
  upsert(record: DnsProviderRecord): Promise<void>;
  delete(id: DnsProviderId): Promise<boolean>;
  recordCreated(record: CreatedDnsRecord): Promise<void>;
  /** The records Berth created for these domains. */
  createdFor(domainIds: readonly string[]): Promise<CreatedDnsRecord[]>;
  forgetCreated(domainId: string, provider: DnsProviderId): Promise<void>;
}

/** Builds the provider client of a stored connection (daemon/integrations/dns/registry.ts). */
export type DnsProviderFactory = (record: DnsProviderRecord) => DnsProvider;
