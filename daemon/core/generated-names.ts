// Hostnames the daemon hands out itself: the dashboard hostname, every service's generated
// `<service slug>.<rootDomain>`, and every database's `databasePublicHostname`. They belong to
// what they were generated for, so no custom domain (of any key) may take one: a tenant adding
// another project's generated name would receive its traffic and its certificate. The proxy
// routes generated names before custom domains (daemon/proxy/caddy.ts), so a custom domain that
// only becomes equal to a generated name later (the root domain or the dashboard hostname changed,
// a service created afterwards) never takes it over either.
import type { Access } from './access.js';
import { Conflict, Forbidden } from './errors.js';
import type { Store } from './store.js';

/** The root domain setting as the proxy uses it (no leading or trailing dots), or null. */
export async function rootDomainOf(store: Store): Promise<string | null> {
  const root = (await store.settings.get('rootDomain'))?.trim().toLowerCase().replace(/^\.+|\.+$/g, '');
  return root || null;
}

/**
 * What `hostname` is generated for (or kept for: with `allProjects` false, every `<label>.<rootDomain>`
 * but the service's own), in words (`the dashboard hostname`, `the generated hostname
 * of another service`, ...), or null when it is no generated name of anything but `serviceId`.
 */
export async function generatedOwner(store: Store, hostname: string, serviceId: string | null, allProjects = true): Promise<string | null> {
  const host = hostname.toLowerCase();
  const dashboard = (await store.settings.get('dashboardHostname'))?.trim().toLowerCase();
  if (dashboard && dashboard === host) return "the server's dashboard hostname";
  const services = await store.services.list();
  if (services.some((s) => s.id !== serviceId && s.databasePublicHostname?.toLowerCase() === host)) return 'the public hostname of a database service';
  const root = await rootDomainOf(store);
  if (root && host.endsWith(`.${root}`)) {
    const label = host.slice(0, -root.length - 1);
    if (!label.includes('.') && services.some((s) => s.id !== serviceId && s.slug === label)) return 'the generated hostname of another service';
    // A service created later with that slug would get the name: the one-label names under the
    // root domain are the generated names' own, kept from selected-projects keys.
    const own = services.find((s) => s.id === serviceId);
    if (!label.includes('.') && !allProjects && own?.slug !== label) return `reserved for generated service hostnames (<service>.${root})`;
  }
  return null;
}

/**
 * A database's public hostname, which the Berth CA signs: it must be nobody else's name (another
 * database's, a service's generated or custom hostname, the dashboard: 409), and a key that does
 * not cover every project may only name something strictly under the root domain (403), so the
 * CA never signs `example.com` or `www.bank.example` for a tenant.
 */
export async function checkDatabaseHostname(store: Store, access: Access, hostname: string): Promise<void> {
  const root = await rootDomainOf(store);
  if (!access.allProjects && !(root && hostname.endsWith(`.${root}`))) {
    throw new Forbidden(
      root
        ? `databasePublicHostname ${hostname} is not under the root domain ${root}; only a key over all projects may choose a name outside it`
        : `no root domain is set, so only a key over all projects may choose a databasePublicHostname`,
    );
  }
  const owner = await generatedOwner(store, hostname, null);
  if (owner) throw new Conflict(`databasePublicHostname ${hostname} is ${owner}; the Berth CA signs it for one service only`, 'hostname_taken');
  if (await store.domains.findByHostname(hostname)) {
    throw new Conflict(`databasePublicHostname ${hostname} is a custom domain of a service; the Berth CA signs it for one service only`, 'hostname_taken');
  }
}

/** `<base>.<root>`, or `<base>-2.<root>`, ... : the first that is nobody's name yet. */
export async function freeDatabaseHostname(store: Store, base: string, root: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = `${n === 1 ? base : `${base}-${n}`}.${root}`;
    if (!(await generatedOwner(store, candidate, null)) && !(await store.domains.findByHostname(candidate))) return candidate;
  }
}
