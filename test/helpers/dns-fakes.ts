// Local stand-ins for the DNS providers' HTTP APIs: Cloudflare (v4 JSON API, bearer token),
// Namecheap (XML API, credentials as parameters, setHosts replacing a whole host list) and
// Spaceship (JSON API, X-API-Key/X-API-Secret). The real paths, methods, auth and response formats,
// with in-memory zones and records; each records the requests it was sent.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface SeenDnsRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: string;
}

interface Running {
  baseUrl: string;
  requests: SeenDnsRequest[];
  stop(): Promise<void>;
}

type Handler = (req: SeenDnsRequest, res: ServerResponse) => void;

async function serve(basePath: string, handler: Handler): Promise<Running> {
  const requests: SeenDnsRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const seen: SeenDnsRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') };
      requests.push(seen);
      try {
        handler(seen, res);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

// ---------------------------------------------------------------- Cloudflare

interface CloudflareRecord {
  id: string;
  zone_id: string;
  zone_name: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: boolean;
}

export interface CloudflareFake extends Running {
  token: string;
  zones: { id: string; name: string }[];
  records: CloudflareRecord[];
}

/** Zones are served `pageSize` per page whatever per_page says, so paging is exercised. */
export async function startCloudflareFake(zoneNames: string[], pageSize = 1): Promise<CloudflareFake> {
  const token = `cf-token-${randomBytes(12).toString('hex')}`;
  const zones = zoneNames.map((name) => ({ id: randomBytes(16).toString('hex'), name }));
  const records: CloudflareRecord[] = [];
  const envelope = (result: unknown, extra: Record<string, unknown> = {}) => ({ success: true, errors: [], messages: [], result, ...extra });
  const failure = (res: ServerResponse, status: number, code: number, message: string) => json(res, status, { success: false, errors: [{ code, message }], messages: [], result: null });
  const running = await serve('/client/v4', (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) return failure(res, 403, 10000, 'Authentication error');
    const path = req.path.replace(/^\/client\/v4/, '');
    if (req.method === 'GET' && path === '/zones') {
      const page = Number(req.query.get('page') ?? '1');
      const totalPages = Math.max(1, Math.ceil(zones.length / pageSize));
      const slice = zones.slice((page - 1) * pageSize, page * pageSize).map((z) => ({ id: z.id, name: z.name, status: 'active', paused: false, type: 'full' }));
      return json(res, 200, envelope(slice, { result_info: { page, per_page: pageSize, count: slice.length, total_count: zones.length, total_pages: totalPages } }));
    }
    const m = /^\/zones\/([^/]+)\/dns_records(?:\/([^/]+))?$/.exec(path);
    const zone = m ? zones.find((z) => z.id === m[1]) : undefined;
    if (!m || !zone) return failure(res, 404, 7003, 'Could not route to /zones, perhaps your object identifier is invalid?');
    const recordId = m[2];
    if (req.method === 'GET' && !recordId) {
      const type = req.query.get('type');
      const name = req.query.get('name');
      const found = records.filter((r) => r.zone_id === zone.id && (!type || r.type === type) && (!name || r.name === name));
      return json(res, 200, envelope(found, { result_info: { page: 1, per_page: 100, count: found.length, total_count: found.length, total_pages: 1 } }));
    }
    if (req.method === 'DELETE' && recordId) {
      const at = records.findIndex((r) => r.id === recordId && r.zone_id === zone.id);
      if (at < 0) return failure(res, 404, 81044, 'Record does not exist.');
      records.splice(at, 1);
      return json(res, 200, envelope({ id: recordId }));
    }
    const body = JSON.parse(req.raw || '{}') as Partial<CloudflareRecord>;
    if (!req.headers['content-type']?.startsWith('application/json')) return failure(res, 400, 6003, 'Invalid request headers');
    if (body.type !== 'A' || typeof body.name !== 'string' || typeof body.content !== 'string') return failure(res, 400, 9000, 'DNS name, type and content are required');
    if (req.method === 'POST' && !recordId) {
      const record: CloudflareRecord = {
        id: randomBytes(16).toString('hex'),
        zone_id: zone.id,
        zone_name: zone.name,
        name: body.name,
        type: 'A',
        content: body.content,
        ttl: body.ttl ?? 1,
        proxied: body.proxied ?? false,
      };
      records.push(record);
      return json(res, 200, envelope(record));
    }
    if (req.method === 'PUT' && recordId) {
      const record = records.find((r) => r.id === recordId && r.zone_id === zone.id);
      if (!record) return failure(res, 404, 81044, 'Record does not exist.');
      Object.assign(record, { name: body.name, content: body.content, ttl: body.ttl ?? 1, proxied: body.proxied ?? false });
      return json(res, 200, envelope(record));
    }
    return failure(res, 405, 10405, 'Method not allowed');
  });
  return { ...running, token, zones, records };
}

// ---------------------------------------------------------------- Namecheap

export interface NamecheapHostRecord {
  HostId: string;
  Name: string;
  Type: string;
  Address: string;
  MXPref: string;
  TTL: string;
}

export interface NamecheapFake extends Running {
  apiUser: string;
  apiKey: string;
  clientIp: string;
  /** Domain name -> its host list. */
  hosts: Map<string, NamecheapHostRecord[]>;
  emailType: Map<string, string>;
  /** The parameters of every setHosts call. */
  setHostsCalls: Record<string, string>[];
  /** Called after each getHosts answer (a test plays someone else editing the zone in between). */
  onGetHosts: ((domain: string) => void) | null;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function ncResponse(command: string, body: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<ApiResponse Status="OK" xmlns="http://api.namecheap.com/xml.response">
  <Errors />
  <Warnings />
  <RequestedCommand>${command.toLowerCase()}</RequestedCommand>
  <CommandResponse Type="${command}">
${body}
  </CommandResponse>
  <Server>PHX01APIEXT03</Server>
  <GMTTimeDifference>--5:00</GMTTimeDifference>
  <ExecutionTime>0.05</ExecutionTime>
</ApiResponse>`;
}

function ncError(command: string, number: string, message: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<ApiResponse Status="ERROR" xmlns="http://api.namecheap.com/xml.response">
  <Errors>
    <Error Number="${number}">${esc(message)}</Error>
  </Errors>
  <Warnings />
  <RequestedCommand>${command.toLowerCase()}</RequestedCommand>
  <Server>PHX01APIEXT03</Server>
  <GMTTimeDifference>--5:00</GMTTimeDifference>
  <ExecutionTime>0.01</ExecutionTime>
</ApiResponse>`;
}

export async function startNamecheapFake(domains: Record<string, Omit<NamecheapHostRecord, 'HostId'>[]>, emailTypes: Record<string, string> = {}): Promise<NamecheapFake> {
  const apiUser = 'berthtest';
  const apiKey = randomBytes(16).toString('hex');
  const clientIp = '198.51.100.7';
  let nextId = 1000;
  const hosts = new Map(Object.entries(domains).map(([d, list]) => [d, list.map((h) => ({ ...h, HostId: String(nextId++) }))]));
  const emailType = new Map(Object.entries(emailTypes));
  const setHostsCalls: Record<string, string>[] = [];
  const running = await serve('/xml.response', (req, res) => {
    const xml = (body: string) => res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(body);
    const params = new URLSearchParams(req.query);
    if (req.method === 'POST') {
      if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return xml(ncError('', '1010101', 'Parameter Command is missing'));
      for (const [k, v] of new URLSearchParams(req.raw)) params.set(k, v);
    }
    // Namecheap treats parameter names case-insensitively
    const p = new Map([...params].map(([k, v]) => [k.toLowerCase(), v]));
    const command = p.get('command') ?? '';
    if (p.get('apiuser') !== apiUser || p.get('username') !== apiUser) return xml(ncError(command, '1011150', 'Parameter RequestIP is invalid'));
    if (p.get('apikey') !== apiKey) return xml(ncError(command, '1011102', 'Parameter APIKey is invalid'));
    if (p.get('clientip') !== clientIp) return xml(ncError(command, '1011150', `Invalid request IP: ${p.get('clientip') ?? ''}`));
    const domainOf = () => `${p.get('sld') ?? ''}.${p.get('tld') ?? ''}`.toLowerCase();
    switch (command) {
      case 'namecheap.domains.getList': {
        const size = Number(p.get('pagesize') ?? '20');
        const page = Number(p.get('page') ?? '1');
        const names = [...hosts.keys()];
        const slice = names.slice((page - 1) * size, page * size);
        const items = slice.map(
          (n, i) =>
            `      <Domain ID="${i + 1}" Name="${n}" User="${apiUser}" Created="01/01/2024" Expires="01/01/2030" IsExpired="false" IsLocked="false" AutoRenew="true" WhoisGuard="ENABLED" IsPremium="false" IsOurDNS="true"/>`,
        );
        return xml(
          ncResponse(
            command,
            `    <DomainGetListResult>\n${items.join('\n')}\n    </DomainGetListResult>\n    <Paging>\n      <TotalItems>${names.length}</TotalItems>\n      <CurrentPage>${page}</CurrentPage>\n      <PageSize>${size}</PageSize>\n    </Paging>`,
          ),
        );
      }
      case 'namecheap.domains.dns.getHosts': {
        const list = hosts.get(domainOf());
        if (!list) return xml(ncError(command, '2019166', 'Domain not found'));
        const items = list.map(
          (h) =>
            `      <host HostId="${h.HostId}" Name="${esc(h.Name)}" Type="${h.Type}" Address="${esc(h.Address)}" MXPref="${h.MXPref}" TTL="${h.TTL}" AssociatedAppTitle="" FriendlyName="" IsActive="true" IsDDNSEnabled="false" />`,
        );
        const et = emailType.get(domainOf());
        queueMicrotask(() => fake.onGetHosts?.(domainOf()));
        return xml(
          ncResponse(command, `    <DomainDNSGetHostsResult Domain="${domainOf()}"${et ? ` EmailType="${et}"` : ''} IsUsingOurDNS="true">\n${items.join('\n')}\n    </DomainDNSGetHostsResult>`),
        );
      }
      case 'namecheap.domains.dns.setHosts': {
        const domain = domainOf();
        if (!hosts.has(domain)) return xml(ncError(command, '2019166', 'Domain not found'));
        setHostsCalls.push(Object.fromEntries(params));
        const list: NamecheapHostRecord[] = [];
        for (let n = 1; p.has(`hostname${n}`); n++) {
          const type = p.get(`recordtype${n}`) ?? '';
          if (!type || !p.has(`address${n}`)) return xml(ncError(command, '2015280', `RecordType${n} or Address${n} is missing`));
          list.push({ HostId: String(nextId++), Name: p.get(`hostname${n}`)!, Type: type, Address: p.get(`address${n}`)!, MXPref: p.get(`mxpref${n}`) ?? '10', TTL: p.get(`ttl${n}`) ?? '1800' });
        }
        const et = p.get('emailtype');
        if (list.some((h) => h.Type === 'MX') && et !== 'MX') return xml(ncError(command, '2050900', 'MX records require EmailType=MX'));
        hosts.set(domain, list);
        if (et) emailType.set(domain, et);
        else emailType.delete(domain);
        return xml(ncResponse(command, `    <DomainDNSSetHostsResult Domain="${domain}" IsSuccess="true">\n      <Warnings />\n    </DomainDNSSetHostsResult>`));
      }
      default:
        return xml(ncError(command, '1010900', `Invalid Command: ${command}`));
    }
  });
  const fake: NamecheapFake = { ...running, apiUser, apiKey, clientIp, hosts, emailType, setHostsCalls, onGetHosts: null };
  return fake;
}

// ---------------------------------------------------------------- Spaceship

interface SpaceshipRecord {
  type: string;
  name: string;
  address: string;
  ttl: number;
}

export interface SpaceshipFake extends Running {
  apiKey: string;
  apiSecret: string;
  /** Domain name -> its records. */
  records: Map<string, SpaceshipRecord[]>;
}

export async function startSpaceshipFake(domains: string[], pageSize = 1): Promise<SpaceshipFake> {
  const apiKey = randomBytes(12).toString('hex');
  const apiSecret = randomBytes(24).toString('hex');
  const records = new Map(domains.map((d) => [d, [] as SpaceshipRecord[]]));
  const same = (a: { type: string; name: string; address?: string }, b: { type: string; name: string; address?: string }) =>
    a.type.toUpperCase() === b.type.toUpperCase() && a.name.toLowerCase() === b.name.toLowerCase() && a.address === b.address;
  const running = await serve('/api/v1', (req, res) => {
    if (req.headers['x-api-key'] !== apiKey || req.headers['x-api-secret'] !== apiSecret) return json(res, 401, { detail: 'Invalid API key or secret.' });
    const path = req.path.replace(/^\/api\/v1/, '');
    const take = Number(req.query.get('take'));
    const skip = Number(req.query.get('skip'));
    const paged = req.method === 'GET';
    if (paged && (!Number.isInteger(take) || take < 1 || take > 500 || !Number.isInteger(skip) || skip < 0)) {
      return json(res, 422, { detail: 'Validation failed', data: [{ field: 'take', details: 'take must be between 1 and 500; skip must be 0 or more' }] });
    }
    if (req.method === 'GET' && path === '/domains') {
      const names = [...records.keys()];
      const slice = names.slice(skip, skip + Math.min(take, pageSize));
      return json(res, 200, { items: slice.map((name) => ({ name, unicodeName: name, isPremium: false, autoRenew: true })), total: names.length });
    }
    const m = /^\/dns\/records\/([^/]+)$/.exec(path);
    const domain = m ? decodeURIComponent(m[1]!) : '';
    const list = records.get(domain);
    if (!m || !list) return json(res, 404, { detail: `Domain ${domain} not found.` });
    if (req.method === 'GET') return json(res, 200, { items: list.slice(skip, skip + take), total: list.length });
    if (!req.headers['content-type']?.startsWith('application/json')) return json(res, 415, { detail: 'Unsupported media type' });
    if (req.method === 'PUT') {
      const body = JSON.parse(req.raw) as { force?: boolean; items?: SpaceshipRecord[] };
      if (typeof body.force !== 'boolean' || !Array.isArray(body.items)) return json(res, 422, { detail: 'Validation failed', data: [{ field: 'items', details: 'items is required' }] });
      for (const item of body.items) {
        if (!list.some((r) => same(r, item))) list.push({ type: item.type, name: item.name, address: item.address, ttl: item.ttl });
      }
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'DELETE') {
      const body = JSON.parse(req.raw) as SpaceshipRecord[];
      records.set(
        domain,
        list.filter((r) => !body.some((d) => same(r, d))),
      );
      res.writeHead(204).end();
      return;
    }
    return json(res, 405, { detail: 'Method not allowed' });
  });
  return { ...running, apiKey, apiSecret, records };
}
