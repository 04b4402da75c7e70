// Provider ids to DNS providers, built per request from the stored connection.
import type { DnsProviderRecord } from '../../core/dns.js';
import { cloudflareProvider } from './cloudflare.js';
import { namecheapProvider } from './namecheap.js';
import { spaceshipProvider } from './spaceship.js';
import type { DnsClientOptions } from './types.js';
import type { DnsProvider } from '../../core/ports/dns-provider.js';

export function dnsProviderFor(record: DnsProviderRecord, opts: DnsClientOptions = {}): DnsProvider {
  const c = record.credentials;
  switch (record.id) {
    case 'cloudflare':
      return cloudflareProvider(record.baseUrl, { apiToken: c.apiToken ?? '' }, opts);
    case 'namecheap':
      return namecheapProvider(record.baseUrl, { apiUser: c.apiUser ?? '', apiKey: c.apiKey ?? '', username: c.username, clientIp: c.clientIp ?? '' }, opts);
    case 'spaceship':
      return spaceshipProvider(record.baseUrl, { apiKey: c.apiKey ?? '', apiSecret: c.apiSecret ?? '' }, opts);
  }
}
