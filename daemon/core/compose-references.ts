// Variables that name another compose service's host become Berth env references: a managed
// database's own URL -> `${db.DATABASE_URL}` (or POSTGRES_URL, REDIS_URL...), a host in a URL or a
// `host:port`, or a bare host in a host key (DB_HOST) -> `${<service>.PRIVATE_HOST}`. Pure.
import { ENGINE_CAPABILITIES } from '../../shared/engines.js';
import type { ServiceDraft } from './compose-draft.js';
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

/** A key whose value is a host name (DB_HOST, REDIS_SERVER, SMTP_ADDR...): only there is a bare name read as a host. */
const HOST_KEY = /(HOST|HOSTNAME|SERVER|ADDR|ADDRESS|ENDPOINT)S?$/;

export function rewriteReferences(drafts: ServiceDraft[]): void {
  const byName = new Map<string, ServiceDraft>();
  for (const d of drafts) if (d.becomes !== 'skipped') for (const name of [d.service, ...d.aliases]) if (!byName.has(name)) byName.set(name, d);
  if (byName.size === 0) return;
  const names = [...byName.keys()].sort((a, b) => b.length - a.length).map(escape);
  // outside URLs: `host:port`, and in a host key also a bare host or a comma-separated list of them
  const hostPort = new RegExp(`(^|,)(${names.join('|')})(?=:\\d+(?:$|,))`, 'g');
  const bare = new RegExp(`(^|,)(${names.join('|')})(?=$|,|:\\d+(?:$|,))`, 'g');
  for (const d of drafts) {
    // a managed database's own variables (its user, its database's name) are never hosts
    if (d.becomes === 'skipped' || d.engine) continue;
    const own = new Set([d.service, ...d.aliases]);
    for (const e of d.berth.env) {
      const before = e.value;
      e.value = rewriteValue(e.key, e.value, byName, own, HOST_KEY.test(e.key) ? bare : hostPort);
      if (e.value !== before) d.warnings.push(`${d.service}: ${e.key} now references ${e.value.match(/\$\{([^}.]+)\./)?.[1] ?? 'another service'} (${e.value.slice(0, 200)})`);
    }
  }
}

function rewriteValue(key: string, value: string, byName: Map<string, ServiceDraft>, own: Set<string>, hosts: RegExp): string {
  const url = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?([^:/?#,@]+)(.*)$/is.exec(value);
  if (url) {
    const [, scheme, userinfo = '', host, rest] = url as unknown as [string, string, string | undefined, string, string];
    const target = byName.get(host);
    if (!target || own.has(host)) return value;
    const variable = databaseUrlVariable(target, host, value, key);
    if (variable) return `\${${target.berth.name}.${variable}}`;
    // a managed Redis requires its password: a redis:// URL without one gets the service's own URL
    const redis = /^(?::\d+)?(\/\d+)?$/.exec(rest);
    if (target.engine === 'redis' && userinfo === '' && /^rediss?:/i.test(scheme) && redis) return `\${${target.berth.name}.REDIS_URL}${redis[1] ?? ''}`;
    return `${scheme}${userinfo}\${${target.berth.name}.PRIVATE_HOST}${rest}`;
  }
  return value.replace(hosts, (whole, before: string, name: string) => {
    const to = byName.get(name);
    return to && !own.has(name) ? `${before}\${${to.berth.name}.PRIVATE_HOST}` : whole;
  });
}
