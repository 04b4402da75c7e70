// Namecheap's XML API (one URL, the command in a parameter; ApiUser, ApiKey, UserName and
// ClientIp on every call). Zones are the account's domains (namecheap.domains.getList, paged),
// so a multi-part TLD (example.co.uk) splits into SLD and TLD by the owned name. setHosts
// REPLACES a domain's whole host list: the list is read (getHosts), the one A record merged in,
// and every other record written back with its fields (MXPref, TTL, and the EmailType). The API
// has no compare-and-set, so the list is read again just before setHosts and nothing is written
// when it changed in between (409 `dns_changed`): a record someone added meanwhile is not lost.
import { Conflict, InvalidInput, ProviderError } from '../../core/errors.js';
import { call, excerpt, refused, type DnsEndpoint } from './http.js';
import type { DnsClientOptions } from './types.js';
import type { ARecordOutcome, DnsProvider } from '../../core/ports/dns-provider.js';
import { elements, first } from './xml.js';
import { refuseApex, refuseExisting } from './existing.js';
import { hostLabel, longestZone } from './zone.js';

const PAGE_SIZE = 100;
const MAX_PAGES = 100;
const DEFAULT_TTL = '1800';

export interface NamecheapCredentials {
  apiUser: string;
  apiKey: string;
  /** The account the calls act on; the API user's own when not given. */
  username?: string | undefined;
  /** The IPv4 whitelisted for API access in the Namecheap account. */
  clientIp: string;
}

interface NamecheapHost {
  name: string;
  type: string;
  address: string;
  mxPref: string;
  ttl: string;
}

export function namecheapProvider(baseUrl: string, creds: NamecheapCredentials, opts: DnsClientOptions = {}): DnsProvider {
  const endpoint: DnsEndpoint = { label: 'Namecheap', baseUrl, secrets: [creds.apiKey], timeoutMs: opts.timeoutMs, fetch: opts.fetch };
  const global = {
    ApiUser: creds.apiUser,
    ApiKey: creds.apiKey,
    UserName: creds.username ?? creds.apiUser,
    ClientIp: creds.clientIp,
  };

  /** Returns the CommandResponse markup of a Status="OK" answer; an ERROR answer becomes a ProviderError with Namecheap's message. */
  async function command(name: string, params: Record<string, string>, post = false): Promise<string> {
    const all = { ...global, Command: name, ...params };
    const res = post
      ? await call(endpoint, { method: 'POST', path: '', body: new URLSearchParams(all).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/xml' } })
      : await call(endpoint, { method: 'GET', path: '', query: all, headers: { accept: 'application/xml' } });
    const root = first(res.text, 'ApiResponse');
    if (root === null) throw refusedOrOdd(res.status, `not an API response: ${excerpt(res.text) || 'empty body'}`);
    const errors = elements(root.inner, 'Error')
      .map((e) => (e.attrs.Number ? `${e.text} (error ${e.attrs.Number})` : e.text))
      .filter((m) => m !== '');
    if (root.attrs.Status !== 'OK' || res.status >= 400) {
      throw refused(endpoint, res.status, errors.length > 0 ? errors.join('; ') : `Status ${root.attrs.Status ?? 'missing'}`);
    }
    return first(root.inner, 'CommandResponse')?.inner ?? '';
  }

  function refusedOrOdd(status: number, message: string): ProviderError {
    return status >= 400 ? refused(endpoint, status, message) : new ProviderError(`Namecheap answered HTTP ${status}, ${message}`);
  }

  async function domains(): Promise<string[]> {
    const names: string[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const body = await command('namecheap.domains.getList', { PageSize: String(PAGE_SIZE), Page: String(page) });
      const found = elements(body, 'Domain')
        .map((d) => d.attrs.Name ?? '')
        .filter((n) => n !== '');
      names.push(...found);
      const total = Number(first(body, 'TotalItems')?.text ?? found.length);
      if (found.length === 0 || names.length >= total) break;
    }
    return names;
  }

  interface HostList {
    hosts: NamecheapHost[];
    emailType: string | undefined;
  }

  async function hostList(zone: string): Promise<HostList> {
    const dot = zone.indexOf('.');
    const listed = await command('namecheap.domains.dns.getHosts', { SLD: zone.slice(0, dot), TLD: zone.slice(dot + 1) });
    const result = first(listed, 'DomainDNSGetHostsResult');
    if (result?.attrs.IsUsingOurDNS?.toLowerCase() === 'false') {
      throw new InvalidInput(`${zone} does not use Namecheap's DNS servers, so its records cannot be set through Namecheap`, 'dns_not_hosted');
    }
    const hosts = elements(result?.inner ?? listed, 'host')
      .concat(elements(result?.inner ?? listed, 'Host'))
      .map((h) => ({
        name: h.attrs.Name ?? '',
        type: (h.attrs.Type ?? '').toUpperCase(),
        address: h.attrs.Address ?? '',
        mxPref: h.attrs.MXPref ?? '10',
        ttl: h.attrs.TTL ?? DEFAULT_TTL,
      }));
    return { hosts, emailType: result?.attrs.EmailType };
  }

  /** setHosts with `next`, unless the list is no longer `seen` (someone wrote in between: 409, nothing written). */
  async function writeChecked(zone: string, seen: HostList, next: NamecheapHost[]): Promise<void> {
    const now = await hostList(zone);
    if (JSON.stringify(now) !== JSON.stringify(seen)) {
      throw new Conflict(`the host list of ${zone} changed while Berth was writing it; nothing was written, try again`, 'dns_changed');
    }
    const dot = zone.indexOf('.');
    const params: Record<string, string> = { SLD: zone.slice(0, dot), TLD: zone.slice(dot + 1) };
    next.forEach((h, i) => {
      const n = i + 1;
      params[`HostName${n}`] = h.name;
      params[`RecordType${n}`] = h.type;
      params[`Address${n}`] = h.address;
      params[`MXPref${n}`] = h.mxPref;
      params[`TTL${n}`] = h.ttl;
    });
    const emailType = seen.emailType ?? (next.some((h) => h.type === 'MX') ? 'MX' : undefined);
    if (emailType) params.EmailType = emailType;
    const set = await command('namecheap.domains.dns.setHosts', params, true);
    const setResult = first(set, 'DomainDNSSetHostsResult');
    if (setResult && setResult.attrs.IsSuccess?.toLowerCase() !== 'true')
      throw new ProviderError(`Namecheap did not confirm the host list of ${zone} (IsSuccess=${setResult.attrs.IsSuccess ?? 'missing'})`);
  }

  return {
    id: 'namecheap',
    name: 'Namecheap',
    async upsertA(hostname, ip, { overwrite, apex }): Promise<ARecordOutcome> {
      const zone = longestZone(hostname, await domains());
      if (zone === null) throw new InvalidInput(`the Namecheap account has no domain for ${hostname}`, 'no_dns_zone');
      const host = hostLabel(hostname, zone);
      refuseApex(hostname, zone, host, apex);
      const seen = await hostList(zone);
      const hosts = seen.hosts;

      if (!overwrite)
        refuseExisting(
          hostname,
          zone,
          hosts.filter((h) => h.name.toLowerCase() === host).map((h) => ({ type: h.type, value: h.address })),
          ip,
        );
      const isTarget = (h: NamecheapHost) => h.type === 'A' && h.name.toLowerCase() === host;
      const targets = hosts.filter(isTarget);
      if (targets.length > 0 && targets.every((h) => h.address === ip)) return { action: 'unchanged', zone, host };
      // The record set of this name becomes the one address; every other host stays as it was.
      const merged: NamecheapHost[] = [];
      let placed = false;
      for (const h of hosts) {
        if (!isTarget(h)) merged.push(h);
        else if (!placed) {
          merged.push({ ...h, address: ip });
          placed = true;
        }
      }
      if (!placed) merged.push({ name: host, type: 'A', address: ip, mxPref: '10', ttl: DEFAULT_TTL });
      await writeChecked(zone, seen, merged);
      return { action: placed ? 'updated' : 'created', zone, host };
    },
    async removeA(hostname, ip) {
      const zone = longestZone(hostname, await domains());
      if (zone === null) return 'absent';
      const host = hostLabel(hostname, zone);
      const seen = await hostList(zone);
      const ours = (h: NamecheapHost) => h.type === 'A' && h.name.toLowerCase() === host && h.address === ip;
      if (!seen.hosts.some(ours)) return 'absent';
      await writeChecked(
        zone,
        seen,
        seen.hosts.filter((h) => !ours(h)),
      );
      return 'removed';
    },
  };
}
