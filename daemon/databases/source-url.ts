// Source URLs of imports: checked before anything starts, and shown only with their credentials
// masked (`postgresql://***@db.example.com:5432/app`).
//
// Only `scheme://[user[:password]@]host[:port][/database]` is accepted: a DNS name or an IP
// address, a port, and a database (a redis number, a postgres name). No query string and no
// fragment: drivers read options there that reach far past "another server" (ioredis's
// `?path=/var/run/docker.sock` connects to any unix socket of the host; libpq's `?host=/path`,
// `sslkey`, `passfile`, `service` read files and sockets inside the container), and a host that
// decodes to a path (`%2Fvar%2Frun`) is a unix socket to libpq.
import { InvalidInput } from '../core/errors.js';
import type { ImportSource } from '../core/ports/backups-repo.js';

const PROTOCOLS: Record<ImportSource, string[]> = {
  'postgres-url': ['postgres:', 'postgresql:'],
  'redis-url': ['redis:', 'rediss:'],
};

const DNS_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/i;

export function parseSourceUrl(source: ImportSource, raw: string): URL {
  const example = `${PROTOCOLS[source][0]}//user:password@host:port/${source === 'redis-url' ? '0' : 'database'}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInput(`sourceUrl is not a URL (expected ${example})`);
  }
  if (!PROTOCOLS[source].includes(url.protocol)) throw new InvalidInput(`sourceUrl must start with ${PROTOCOLS[source].map((p) => `${p}//`).join(' or ')}`);
  if (!url.hostname) throw new InvalidInput('sourceUrl has no host');
  if (raw.includes('?') || raw.includes('#') || url.search || url.hash) {
    throw new InvalidInput(`sourceUrl must not carry options (no ?... or #...): only ${example}`);
  }
  // WHATWG URLs keep percent-escapes in a non-special scheme's host: `%2Fvar%2Frun` would be a path to libpq.
  if (!DNS_NAME.test(url.hostname) && !IPV4.test(url.hostname) && !IPV6.test(url.hostname)) {
    throw new InvalidInput(`sourceUrl's host must be a DNS name or an IP address (unix sockets and paths are refused); got ${JSON.stringify(url.hostname.slice(0, 80))}`);
  }
  if (url.port !== '' && !/^\d{1,5}$/.test(url.port)) throw new InvalidInput('sourceUrl has an invalid port');
  const path = url.pathname;
  if (source === 'redis-url') {
    if (path !== '' && path !== '/' && !/^\/\d{1,5}$/.test(path)) throw new InvalidInput(`a redis sourceUrl's path is a database number (/0) or nothing; got ${JSON.stringify(path.slice(0, 80))}`);
  } else if (path.slice(1).includes('/')) {
    throw new InvalidInput(`a postgres sourceUrl's path is one database name; got ${JSON.stringify(path.slice(0, 80))}`);
  }
  return url;
}

/** The host (an IPv6 address without its brackets) and port of a redis sourceUrl that parseSourceUrl accepted. */
export function redisEndpoint(url: URL): { host: string; port: number } {
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379) };
}

/** The URL with user and password replaced by `***`, and no query string (it may hold a password too). */
export function maskedSourceLabel(raw: string): string {
  try {
    const url = new URL(raw);
    const credentials = url.username || url.password ? '***@' : '';
    return `${url.protocol}//${credentials}${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}
