// What Caddy should route, read from the store: every web service's hostnames (its domains, its
// generated name) and host port, each to its live container (or one routed ahead during a swap),
// the projects' status pages, and the HTTPS mode. No Caddy here: proxy/caddy.ts turns this into a config and loads it.
import { liveDeployments } from '../core/deployment-states.js';
import { generatedHostnameOf, rootDomainOf } from '../core/generated-names.js';
import type { Store } from '../core/ports/store.js';
import type { ServiceRecord } from '../core/records.js';
import { POOL_PREFIX, type HostPortRoute, type HttpsMode, type ProxyRoute } from './caddy-config.js';

/** A routed hostname as the store describes it: a status page's HTML itself, which proxy/caddy.ts puts in a file. */
export type RoutedHostname = Omit<ProxyRoute, 'pageFile'> & { pageHtml?: string };

export async function readHttpsMode(store: Store): Promise<{ httpsMode: HttpsMode; acmeEmail: string | null }> {
  const acmeEmail = (await store.settings.get('acmeEmail'))?.trim() || null;
  const raw = (await store.settings.get('httpsMode'))?.trim();
  const httpsMode: HttpsMode = raw === 'acme' || raw === 'internal' || raw === 'http' ? raw : acmeEmail ? 'acme' : 'internal';
  return { httpsMode, acmeEmail };
}

/** Services whose host port and hostnames Caddy serves (HTTP): not databases, not workers. */
export function isRoutedWeb(s: ServiceRecord): boolean {
  return s.hostPort !== null && s.runtimeMode !== 'worker' && s.kind !== 'database';
}

/** Code-point order: the keys are ISO timestamps, ids and hostnames (ASCII), and localeCompare would load ICU's collator (resident megabytes) and sort 10,000 services several times slower. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Each web service's live upstream: the published port of its live deployment, or the pool of its
 * answering Swarm tasks once it has one (a Swarm-backed service's deployment has no port; when a
 * service moves from a container to Swarm, the pool takes over as its first tasks answer), unless
 * `ahead` names one (a new container going live before the store says so).
 */
async function liveUpstreams(store: Store, services: readonly ServiceRecord[], ahead: ReadonlyMap<string, number>, pools: ReadonlyMap<string, readonly string[]>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const d of (
    await liveDeployments(
      store,
      services.map((s) => s.id),
    )
  ).values()) {
    if (d.upstreamPort !== null) out.set(d.serviceId, `127.0.0.1:${d.upstreamPort}`);
  }
  for (const [serviceId, dials] of pools) if (dials.length > 0) out.set(serviceId, `${POOL_PREFIX}${serviceId}`);
  for (const [serviceId, port] of ahead) out.set(serviceId, `127.0.0.1:${port}`);
  return out;
}

/** Every hostname and host port Berth routes, each to a live container; the first claim of a hostname wins. */
export async function routingFromStore(
  store: Store,
  dashboardUpstream: string | null,
  ahead: ReadonlyMap<string, number> = new Map(),
  pools: ReadonlyMap<string, readonly string[]> = new Map(),
): Promise<{ routes: RoutedHostname[]; hostPorts: HostPortRoute[] }> {
  const routes: RoutedHostname[] = [];
  const taken = new Set<string>();
  const add = (hostname: string, upstream: string | null, serviceId?: string, pageHtml?: string) => {
    const h = hostname.toLowerCase();
    if (taken.has(h)) return;
    taken.add(h);
    routes.push({ hostname: h, upstream, ...(serviceId ? { serviceId } : {}), ...(pageHtml !== undefined ? { pageHtml } : {}) });
  };
  const dashboardHostname = (await store.settings.get('dashboardHostname'))?.trim();
  if (dashboardHostname && dashboardUpstream) add(dashboardHostname, dashboardUpstream);

  const services = (await store.services.list()).filter(isRoutedWeb);
  const live = await liveUpstreams(store, services, ahead, pools);
  const byId = new Map(services.map((s) => [s.id, s]));
  const ordered = [...services].sort((a, b) => byText(a.createdAt, b.createdAt) || byText(a.id, b.id));
  // Generated names first: they belong to their service (labels are unique: core/generated-names.ts),
  // and a custom domain equal to one, whenever it became equal, never takes it over.
  const rootDomain = await rootDomainOf(store);
  for (const s of ordered) {
    const generated = generatedHostnameOf(s, rootDomain);
    if (generated) add(generated, live.get(s.id) ?? null, s.id);
  }
  const domains = [...(await store.domains.listAll())].sort((a, b) => byText(a.createdAt, b.createdAt) || byText(a.hostname, b.hostname));
  for (const d of domains) {
    if (byId.has(d.serviceId)) add(d.hostname, live.get(d.serviceId) ?? null, d.serviceId);
  }
  // projects' public status pages, as last rendered (core/status-pages.ts)
  for (const p of await store.statusPages.list()) if (p.enabled && p.html !== null) add(p.hostname, null, undefined, p.html);
  const hostPorts: HostPortRoute[] = [];
  for (const s of ordered) {
    const upstream = live.get(s.id);
    if (upstream) hostPorts.push({ hostPort: s.hostPort!, bindHost: s.databasePublicEnabled ? '0.0.0.0' : '127.0.0.1', upstream });
  }
  return { routes, hostPorts };
}
