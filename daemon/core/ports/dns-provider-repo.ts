// DNS provider connections as the store keeps them (daemon/store/dns-providers-repo.ts implements it).
import type { DnsProviderId } from './dns-provider.js';

export interface DnsProviderRecord {
  id: DnsProviderId;
  baseUrl: string;
  /** Plain text in memory; the store seals the whole object at rest. */
  credentials: Record<string, string | undefined>;
  createdAt: string;
  updatedAt: string;
}

export interface DnsProviderRepo {
  list(): Promise<DnsProviderRecord[]>;
  get(id: DnsProviderId): Promise<DnsProviderRecord | null>;
  upsert(record: DnsProviderRecord): Promise<void>;
  delete(id: DnsProviderId): Promise<boolean>;
}
