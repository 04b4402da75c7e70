// DNS providers and the records Berth writes through them.

export type DnsProviderId = 'cloudflare' | 'namecheap' | 'spaceship';

export interface DnsProviderStatus {
  id: DnsProviderId;
  name: string;
  connected: boolean;
}

/** Per provider; `baseUrl` defaults to the provider's real API. Never returned. */
export type DnsProviderCredentials =
  | { apiToken: string; baseUrl?: string }
  | { apiUser: string; apiKey: string; username?: string; clientIp: string; baseUrl?: string }
  | { apiKey: string; apiSecret: string; baseUrl?: string };

/** What writing a record did. */
export type DnsAction = 'created' | 'updated' | 'unchanged';

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
