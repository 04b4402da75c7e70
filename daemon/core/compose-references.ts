// Variables that name another compose service's host become Berth env references: a managed
// database's own URL -> `${db.DATABASE_URL}` (or POSTGRES_URL, REDIS_URL...), a host in a URL or a
// `host:port` or a bare host -> `${<service>.PRIVATE_HOST}`. Pure.
import { ENGINE_CAPABILITIES } from '../../shared/engines.js';
import type { ServiceDraft } from './compose-service.js';
import { ENGINES } from './engines.js';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const normalizeScheme = (url: string) => url.replace(/^postgres:\/\//, 'postgresql://');

/** The official images' defaults where Berth's differ (postgres's user is `postgres`, its database the user's name). */
export function officialDatabaseDefaults(d: ServiceDraft): void {
  if (d.engine !== 'postgres' && d.engine !== 'timescale') return;
  const env = d.berth.env;
  const get = (key: string) => env.find((e) => e.key === key)?.value;
  if (!get('POSTGRES_USER')) env.push({ key: 'POSTGRES_USER', value: 'postgres' });
  if (!get('POSTGRES_DB')) env.push({ key: 'POSTGRES_DB', value: get('POSTGRES_USER')! });
}

/** The managed database's connection URL variable whose value (with `host` as its host) equals `value`. */
function databaseUrlVariable(target: ServiceDraft, host: string, value: string, preferred: string): string | null {
  if (!target.engine) return null;
  const vars = new Map(target.berth.env.map((e) => [e.key, e.value]));
  const urls = ENGINES[target.engine].urls(vars, host, ENGINE_CAPABILITIES[target.engine].port);
  const matching = Object.entries(urls)
    .filter(([, url]) => normalizeScheme(url) === normalizeScheme(value))
    .map(([key]) => key);
  if (matching.length === 0) return null;
  return matching.includes(preferred) ? preferred : matching.includes('DATABASE_URL') ? 'DATABASE_URL' : matching[0]!;
}

export function rewriteReferences(drafts: ServiceDraft[]): void {
  const byName = new Map<string, ServiceDraft>();
  for (const d of drafts) if (d.becomes !== 'skipped') for (const name of [d.service, ...d.aliases]) if (!byName.has(name)) byName.set(name, d);
  if (byName.size === 0) return;
  const names = [...byName.keys()].sort((a, b) => b.length - a.length).map(escape);
  // a host: at the start, after `//`, `@` or `,` (host lists), and ending the value or before `:`, `/`, `,` or `?`
  const host = new RegExp(`(^|//|@|,)(${names.join('|')})(?=$|[:/,?])`, 'g');
  for (const d of drafts) {
    if (d.becomes === 'skipped') continue;
    const own = new Set([d.service, ...d.aliases]);
    for (const e of d.berth.env) {
      const before = e.value;
      const whole = byName.get(e.value);
      if (whole && !own.has(e.value)) {
        e.value = `\${${whole.berth.name}.PRIVATE_HOST}`;
      } else {
        e.value = rewriteValue(e.key, e.value, byName, own, host);
      }
      if (e.value !== before) d.warnings.push(`${d.service}: ${e.key} now references ${e.value.match(/\$\{([^}.]+)\./)?.[1] ?? 'another service'} (${e.value.slice(0, 200)})`);
    }
  }
}

function rewriteValue(key: string, value: string, byName: Map<string, ServiceDraft>, own: Set<string>, host: RegExp): string {
  const url = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?([^:/?#,]+)/i.exec(value);
  const target = url ? byName.get(url[2]!) : undefined;
  if (url && target && !own.has(url[2]!)) {
    const variable = databaseUrlVariable(target, url[2]!, value, key);
    if (variable) return `\${${target.berth.name}.${variable}}`;
    // a managed Redis requires its password: a redis:// URL without one gets the service's own URL
    const redis = /^rediss?:\/\/([^:/@]+)(?::\d+)?(\/\d+)?$/i.exec(value);
    if (target.engine === 'redis' && redis) return `\${${target.berth.name}.REDIS_URL}${redis[2] ?? ''}`;
  }
  return value.replace(host, (whole, before: string, name: string) => {
    const to = byName.get(name);
    return to && !own.has(name) ? `${before}\${${to.berth.name}.PRIVATE_HOST}` : whole;
  });
}
