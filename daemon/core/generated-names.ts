// Hostnames the daemon hands out itself: the dashboard hostname, every service's generated
// `<label>.<rootDomain>`, and every database's `databasePublicHostname`. They belong to
// what they were generated for, so no custom domain (of any key) may take one: a tenant adding
// another project's generated name would receive its traffic and its certificate. The proxy
// routes generated names before custom domains (daemon/proxy/caddy.ts), so a custom domain that
// only becomes equal to a generated name later (the root domain or the dashboard hostname changed,
// a service created afterwards) never takes it over either.
//
// A service's label is `<service slug>-<project slug>` (`-2`, `-3`, ... when taken): one label under
// the root domain, so one wildcard certificate or per-name ACME still covers every generated name,
// and unique to its project. Every label handed out is recorded with its project and stays that
// project's after the service is gone (cookies, OAuth callbacks and certificates were issued for
// it): another project never gets it, the same project's next service of that name does. Only a
// key over all projects releases a label (DELETE /api/generated-names/:label).
import type { GeneratedName } from '../../shared/types.js';
import type { Access } from './access.js';
import { Conflict, Forbidden, NotFound } from './errors.js';
import type { GeneratedNameRecord, ServiceRecord } from './records.js';
import type { Store } from './ports/store.js';
import { NO_EVENTS, type EventSink } from './events.js';

/** The longest DNS label. */
const MAX_LABEL = 63;

/** The service's generated hostname under `root`, or null (no root domain, or a record made before labels). */
export function generatedHostnameOf(service: Pick<ServiceRecord, 'generatedLabel'>, root: string | null): string | null {
  return root && service.generatedLabel ? `${service.generatedLabel}.${root}` : null;
}

/**
 * A label for a new service of `projectId` (or one moved into it): `<service>-<project>`, else with
 * `-2`, `-3`, ...: the first that no service holds, that no other project ever held, and that is
 * nobody's hostname under the root domain now (a custom domain, the dashboard, a database).
 */
export async function newGeneratedLabel(store: Store, projectId: string, projectSlug: string, serviceSlug: string): Promise<string> {
  const base = `${serviceSlug}-${projectSlug}`
    .toLowerCase()
    .slice(0, MAX_LABEL - 6)
    .replace(/-+$/, '');
  const root = await rootDomainOf(store);
  for (let n = 1; ; n++) {
    const label = n === 1 ? base : `${base}-${n}`;
    if ((await store.services.withGeneratedLabel(label)).length > 0) continue;
    const record = await store.services.generatedName(label);
    if (record && record.projectId !== projectId) continue;
    if (root) {
      const host = `${label}.${root}`;
      if ((await generatedOwner(store, host, null, true, projectId)) || (await store.domains.findByHostname(host))) continue;
    }
    return label;
  }
}

const nameView = (r: GeneratedNameRecord, root: string | null, heldBy: ServiceRecord | undefined): GeneratedName => ({
  label: r.label,
  hostname: root ? `${r.label}.${root}` : null,
  projectId: r.projectId,
  serviceId: heldBy?.id ?? null,
  createdAt: r.createdAt,
});

/** The record of generated names, for keys over all projects: read it, release a label. */
export class GeneratedNames {
  constructor(
    private store: Store,
    private events: EventSink = NO_EVENTS,
  ) {}

  async list(access: Access): Promise<GeneratedName[]> {
    access.requireAllProjects('listing the generated names of every project');
    const root = await rootDomainOf(this.store);
    const services = await this.store.services.list();
    return (await this.store.services.generatedNames()).map((r) =>
      nameView(
        r,
        root,
        services.find((s) => s.generatedLabel === r.label),
      ),
    );
  }

  /** Forgets that a label was generated for its project, so that any project's new service may get it. */
  async release(access: Access, labelOrHostname: string): Promise<void> {
    access.requireWrite();
    access.requireAllProjects('releasing a generated name');
    const root = await rootDomainOf(this.store);
    let label = labelOrHostname.trim().toLowerCase().replace(/\.+$/, '');
    if (root && label.endsWith(`.${root}`)) label = label.slice(0, -root.length - 1);
    const record = await this.store.services.generatedName(label);
    if (!record) throw new NotFound(`no generated name ${label} is recorded`);
    const [holder] = await this.store.services.withGeneratedLabel(label);
    if (holder) throw new Conflict(`generated name ${label} belongs to the live service ${holder}; delete or move that service first`, 'hostname_taken');
    await this.store.services.releaseGeneratedName(label);
    this.events.publish({ type: 'generated-name', allProjects: true, data: { label, action: 'released' } });
  }
}

/** The root domain setting as the proxy uses it (no leading or trailing dots), or null. */
export async function rootDomainOf(store: Store): Promise<string | null> {
  const root = (await store.settings.get('rootDomain'))
    ?.trim()
    .toLowerCase()
    .replace(/^\.+|\.+$/g, '');
  return root || null;
}

/**
 * What `hostname` is generated for (or kept for: with `allProjects` false, every `<label>.<rootDomain>`
 * but the service's own), in words (`the dashboard hostname`, `the generated hostname
 * of another service`, ...), or null when it is no generated name of anything but `serviceId`.
 * A label recorded for a project (its service gone) is kept for that project: `projectId` (or the
 * service's) may use it, no other. A status page's hostname is its project's (`projectId`) only.
 */
export async function generatedOwner(store: Store, hostname: string, serviceId: string | null, allProjects = true, projectId?: string): Promise<string | null> {
  const host = hostname.toLowerCase();
  const dashboard = (await store.settings.get('dashboardHostname'))?.trim().toLowerCase();
  if (dashboard && dashboard === host) return "the server's dashboard hostname";
  const page = await store.statusPages.findByHostname(host);
  if (page && page.projectId !== projectId) return "a project's status page";
  const others = (ids: string[]): boolean => ids.some((id) => id !== serviceId);
  if (others(await store.services.withDatabaseHostname(host))) return 'the public hostname of a database service';
  const root = await rootDomainOf(store);
  if (root && host.endsWith(`.${root}`)) {
    const label = host.slice(0, -root.length - 1);
    const own = serviceId === null ? null : await store.services.get(serviceId);
    if (!label.includes('.') && own?.generatedLabel !== label) {
      if (others(await store.services.withGeneratedLabel(label))) return 'the generated hostname of another service';
      const record = await store.services.generatedName(label);
      if (record && record.projectId !== (projectId ?? own?.projectId)) return 'a generated hostname kept for the project it was generated for';
      // A service created later would get the name: the one-label names under the root domain are
      // the generated names' own, kept from selected-projects keys.
      if (!allProjects) return `reserved for generated service hostnames (<service>-<project>.${root})`;
    }
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

/** `<base>.<root>`, or `<base>-2.<root>`, ... : the first that is nobody's name yet (`projectId`'s own kept labels allowed). */
export async function freeDatabaseHostname(store: Store, base: string, root: string, projectId: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = `${n === 1 ? base : `${base}-${n}`}.${root}`;
    if (!(await generatedOwner(store, candidate, null, true, projectId)) && !(await store.domains.findByHostname(candidate))) return candidate;
  }
}
