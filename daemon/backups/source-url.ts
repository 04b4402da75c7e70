// Source URLs of imports: checked before anything starts, and shown only with their credentials
// masked (`postgresql://***@db.example.com:5432/app`).
import { InvalidInput } from '../core/errors.js';
import type { ImportSource } from './records.js';

const PROTOCOLS: Record<ImportSource, string[]> = {
  'postgres-url': ['postgres:', 'postgresql:'],
  'redis-url': ['redis:', 'rediss:'],
};

export function parseSourceUrl(source: ImportSource, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInput(`sourceUrl is not a URL (expected ${PROTOCOLS[source][0]}//user:password@host:port/...)`);
  }
  if (!PROTOCOLS[source].includes(url.protocol)) throw new InvalidInput(`sourceUrl must start with ${PROTOCOLS[source].map((p) => `${p}//`).join(' or ')}`);
  if (!url.hostname) throw new InvalidInput('sourceUrl has no host');
  return url;
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
