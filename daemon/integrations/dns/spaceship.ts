// Spaceship's API: X-API-Key and X-API-Secret headers; the account's domains listed page by page
// (take/skip); a domain's records read with GET and saved with PUT {force, items} (which adds
// records); an A record pointing elsewhere is removed with DELETE (a body listing the records)
// before the new one is saved. Errors are JSON with `detail` (and sometimes `data` per field).
import { InvalidInput, ProviderError } from '../../core/errors.js';
import { call, excerpt, parseJson, refused, type DnsEndpoint } from './http.js';
import type { DnsClientOptions } from './types.js';
import type { ARecordOutcome, DnsProvider } from '../../core/ports/dns-provider.js';
import { refuseApex, refuseExisting } from './existing.js';
import { hostLabel, longestZone } from './zone.js';

const PAGE = 100;
const MAX_PAGES = 100;
const TTL = 3600;

export interface SpaceshipCredentials {
  apiKey: string;
  apiSecret: string;
}

interface Page<T> {
  items?: T[];
  total?: number;
}

interface SpaceshipRecord {
  type: string;
  name: string;
  address?: string;
  ttl?: number;
}

export function spaceshipProvider(baseUrl: string, creds: SpaceshipCredentials, opts: DnsClientOptions = {}): DnsProvider {
  const endpoint: DnsEndpoint = { label: 'Spaceship', baseUrl, secrets: [creds.apiKey, creds.apiSecret], timeoutMs: opts.timeoutMs, fetch: opts.fetch };
  const auth = { 'X-API-Key': creds.apiKey, 'X-API-Secret': creds.apiSecret };

  async function api(method: string, path: string, query?: Record<string, string>, body?: unknown): Promise<unknown> {
    const res = await call(endpoint, { method, path, query, body, headers: auth });
    const json = parseJson(res.text);
    if (res.status < 200 || res.status >= 300) throw refused(endpoint, res.status, errorMessage(json) ?? (excerpt(res.text) || 'no message'));
    return json;
  }

  async function domains(): Promise<string[]> {
    const names: string[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = (await api('GET', '/domains', { take: String(PAGE), skip: String(names.length) })) as Page<{ name?: string }> | undefined;
      if (!res || !Array.isArray(res.items)) throw new ProviderError('Spaceship answered the domain list without items');
      if (res.items.length === 0) break;
      names.push(...res.items.map((d) => d.name ?? ''));
      if (names.length >= (res.total ?? names.length)) break;
    }
    return names.filter((n) => n !== '');
  }

  return {
    id: 'spaceship',
    name: 'Spaceship',
    async upsertA(hostname, ip, { overwrite, apex }): Promise<ARecordOutcome> {
      const zone = longestZone(hostname, await domains());
      if (zone === null) throw new InvalidInput(`the Spaceship account has no domain for ${hostname}`, 'no_dns_zone');
      const host = hostLabel(hostname, zone);
      refuseApex(hostname, zone, host, apex);
      const path = `/dns/records/${encodeURIComponent(zone)}`;
      const res = (await api('GET', path, { take: '500', skip: '0' })) as Page<SpaceshipRecord> | undefined;
      const records = Array.isArray(res?.items) ? res.items : [];
      if (!overwrite) {
        const named = records.filter((r) => r.name?.toLowerCase() === host);
        refuseExisting(
          hostname,
          zone,
          named.map((r) => ({ type: r.type ?? '', value: r.address ?? (r as { cname?: string }).cname ?? '' })),
          ip,
        );
      }
      const current = records.filter((r) => r.type?.toUpperCase() === 'A' && r.name?.toLowerCase() === host);
      if (current.length > 0 && current.every((r) => r.address === ip)) return { action: 'unchanged', zone, host };
      const stale = current.filter((r) => r.address !== ip);
      if (stale.length > 0)
        await api(
          'DELETE',
          path,
          undefined,
          stale.map((r) => ({ type: 'A', name: r.name, address: r.address })),
        );
      if (!current.some((r) => r.address === ip)) await api('PUT', path, undefined, { force: true, items: [{ type: 'A', name: host, address: ip, ttl: TTL }] });
      return { action: current.length > 0 ? 'updated' : 'created', zone, host };
    },
    async removeA(hostname, ip) {
      const zone = longestZone(hostname, await domains());
      if (zone === null) return 'absent';
      const host = hostLabel(hostname, zone);
      const path = `/dns/records/${encodeURIComponent(zone)}`;
      const res = (await api('GET', path, { take: '500', skip: '0' })) as Page<SpaceshipRecord> | undefined;
      const ours = (Array.isArray(res?.items) ? res.items : []).filter((r) => r.type?.toUpperCase() === 'A' && r.name?.toLowerCase() === host && r.address === ip);
      if (ours.length === 0) return 'absent';
      await api(
        'DELETE',
        path,
        undefined,
        ours.map((r) => ({ type: 'A', name: r.name, address: r.address })),
      );
      return 'removed';
    },
  };
}

function errorMessage(json: unknown): string | null {
  if (typeof json !== 'object' || json === null) return null;
  const { detail, data } = json as { detail?: unknown; data?: unknown };
  const parts: string[] = [];
  if (typeof detail === 'string' && detail !== '') parts.push(detail);
  if (Array.isArray(data)) {
    for (const d of data) {
      if (typeof d === 'object' && d !== null) {
        const { field, details } = d as { field?: unknown; details?: unknown };
        if (typeof details === 'string') parts.push(typeof field === 'string' ? `${field}: ${details}` : details);
      }
    }
  }
  return parts.length > 0 ? parts.join('; ') : null;
}
