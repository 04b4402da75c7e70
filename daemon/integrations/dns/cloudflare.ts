// Cloudflare's v4 API: a bearer API token; zones listed page by page; A records looked up by
// exact name and created (POST) or updated (PUT). Every answer is {success, errors, result}.
import { InvalidInput, ProviderError } from '../../core/errors.js';
import { call, excerpt, parseJson, refused, type DnsEndpoint } from './http.js';
import type { DnsClientOptions } from './types.js';
import type { ARecordOutcome, DnsProvider } from '../../core/ports/dns-provider.js';
import { refuseApex, refuseExisting } from './existing.js';
import { hostLabel, longestZone } from './zone.js';

const MAX_PAGES = 200;

export interface CloudflareCredentials {
  apiToken: string;
}

interface Envelope<T> {
  success?: boolean;
  errors?: { code?: number; message?: string }[];
  result?: T;
  result_info?: { page?: number; total_pages?: number };
}

interface Zone {
  id: string;
  name: string;
}

interface DnsRecord {
  id: string;
  type: string;
  name: string;
  content: string;
}

export function cloudflareProvider(baseUrl: string, creds: CloudflareCredentials, opts: DnsClientOptions = {}): DnsProvider {
  const endpoint: DnsEndpoint = { label: 'Cloudflare', baseUrl, secrets: [creds.apiToken], timeoutMs: opts.timeoutMs, fetch: opts.fetch };

  async function api<T>(method: string, path: string, query?: Record<string, string>, body?: unknown): Promise<Envelope<T>> {
    const res = await call(endpoint, { method, path, query, body, headers: { authorization: `Bearer ${creds.apiToken}` } });
    const json = parseJson(res.text) as Envelope<T> | undefined;
    const ok = res.status >= 200 && res.status < 300 && json !== undefined && json.success !== false;
    if (!ok) {
      const messages = (json?.errors ?? []).map((e) => (e.code !== undefined ? `${e.message ?? 'error'} (code ${e.code})` : (e.message ?? 'error')));
      throw refused(endpoint, res.status, messages.length > 0 ? messages.join('; ') : excerpt(res.text) || 'no message');
    }
    return json;
  }

  async function zones(): Promise<Zone[]> {
    const all: Zone[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const res = await api<Zone[]>('GET', '/zones', { per_page: '50', page: String(page) });
      if (!Array.isArray(res.result)) throw new ProviderError('Cloudflare answered the zone list without a result array');
      all.push(...res.result);
      const total = res.result_info?.total_pages ?? 1;
      if (page >= total || res.result.length === 0) break;
    }
    return all;
  }

  return {
    id: 'cloudflare',
    name: 'Cloudflare',
    async upsertA(hostname, ip, { overwrite, apex }): Promise<ARecordOutcome> {
      const owned = await zones();
      const zoneName = longestZone(
        hostname,
        owned.map((z) => z.name),
      );
      if (zoneName === null) throw new InvalidInput(`the Cloudflare account has no zone for ${hostname}`, 'no_dns_zone');
      const zone = owned.find((z) => z.name.toLowerCase() === zoneName)!;
      const host = hostLabel(hostname, zoneName);
      refuseApex(hostname, zoneName, host, apex);
      const zonePath = `/zones/${encodeURIComponent(zone.id)}/dns_records`;
      // Every type at the name: a CNAME or AAAA there counts as an existing record too.
      const existing = await api<DnsRecord[]>('GET', zonePath, { name: hostname });
      const named = Array.isArray(existing.result) ? existing.result.filter((r) => r.name.toLowerCase() === hostname) : [];
      if (!overwrite)
        refuseExisting(
          hostname,
          zoneName,
          named.map((r) => ({ type: r.type, value: r.content })),
          ip,
        );
      const records = named.filter((r) => r.type === 'A');
      const body = { type: 'A', name: hostname, content: ip, ttl: 1, proxied: false };
      if (records.length === 0) {
        await api('POST', zonePath, undefined, body);
        return { action: 'created', zone: zoneName, host };
      }
      if (records.some((r) => r.content === ip)) return { action: 'unchanged', zone: zoneName, host };
      await api('PUT', `${zonePath}/${encodeURIComponent(records[0]!.id)}`, undefined, body);
      return { action: 'updated', zone: zoneName, host };
    },
    async removeA(hostname, ip) {
      const owned = await zones();
      const zoneName = longestZone(
        hostname,
        owned.map((z) => z.name),
      );
      if (zoneName === null) return 'absent';
      const zone = owned.find((z) => z.name.toLowerCase() === zoneName)!;
      const zonePath = `/zones/${encodeURIComponent(zone.id)}/dns_records`;
      const existing = await api<DnsRecord[]>('GET', zonePath, { name: hostname, type: 'A' });
      const ours = (Array.isArray(existing.result) ? existing.result : []).filter((r) => r.type === 'A' && r.name.toLowerCase() === hostname && r.content === ip);
      for (const r of ours) await api('DELETE', `${zonePath}/${encodeURIComponent(r.id)}`);
      return ours.length > 0 ? 'removed' : 'absent';
    },
  };
}
