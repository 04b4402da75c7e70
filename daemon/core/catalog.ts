// Read models shared by several use cases: project views with their services, the reference
// resolver of a project, and the variable suggestions built from it.
import type { DatabaseVariableSuggestion, Project, Service } from '../../shared/types.js';
import { connectionVariableNames } from './engines.js';
import { EnvResolver, publicName } from './env-references.js';
import { rootDomainOf } from './generated-names.js';
import type { DomainRecord, ProjectRecord, ServiceRecord } from './records.js';
import type { Store } from './ports/store.js';
import type { VolumeSizes } from './ports/volume-sizes.js';
import type { LimitPolicy } from './limits.js';
import { projectView, serviceView } from './views.js';

/** The name to write in `${name.VAR}`: the service's name when it fits the reference syntax, else its slug. */
export function referenceName(s: Pick<ServiceRecord, 'name' | 'slug'>): string {
  return /^[A-Za-z0-9_-]+$/.test(s.name) ? s.name : s.slug;
}

export class Catalog {
  constructor(
    private store: Store,
    readonly limits: LimitPolicy,
    readonly volumeSizes: VolumeSizes = { sizeOf: () => null },
  ) {}

  async projectViews(projects: readonly ProjectRecord[]): Promise<Project[]> {
    if (projects.length === 0) return [];
    // Every project (a key over all of them): the unfiltered reads, which the proxy's routing makes
    // too, so that the read cache holds one copy of every service and domain instead of two.
    const everyProject = projects.length === (await this.store.projects.list()).length;
    const services = await this.store.services.list(everyProject ? undefined : projects.map((p) => p.id));
    const views = await this.serviceViews(services, everyProject);
    const byProject = new Map<string, Service[]>();
    for (const v of views) {
      const list = byProject.get(v.projectId) ?? [];
      list.push(v);
      byProject.set(v.projectId, list);
    }
    return projects.map((p) => projectView(p, byProject.get(p.id) ?? []));
  }

  /** `everyService`: `services` is every service there is (then every domain is read, unfiltered). */
  async serviceViews(services: readonly ServiceRecord[], everyService = false): Promise<Service[]> {
    const domains = everyService ? await this.store.domains.listAll() : await this.store.domains.listByServices(services.map((s) => s.id));
    // grouped once: a scan of every domain per service made the list quadratic (1 s at 10,000 services)
    const byService = new Map<string, DomainRecord[]>();
    for (const d of domains) {
      const list = byService.get(d.serviceId);
      if (list) list.push(d);
      else byService.set(d.serviceId, [d]);
    }
    const root = await rootDomainOf(this.store);
    const sizeOf = (projectId: string, name: string) => this.volumeSizes.sizeOf(projectId, name);
    return services.map((s) => serviceView(s, byService.get(s.id) ?? [], this.limits, root, sizeOf));
  }

  async resolver(projectId: string): Promise<{ services: ServiceRecord[]; resolver: EnvResolver }> {
    const services = await this.store.services.list([projectId]);
    const env = await this.store.env.listByServices(services.map((s) => s.id));
    return { services, resolver: new EnvResolver(services, env) };
  }

  /** A service's own variables with their references resolved (leniently: as written when they cannot be). */
  async resolvedEnv(service: ServiceRecord): Promise<Map<string, string>> {
    const { resolver } = await this.resolver(service.projectId);
    const vars = new Map<string, string>();
    for (const e of await this.store.env.listByService(service.id)) vars.set(e.key, resolver.resolveLenient(e.value));
    return vars;
  }

  /** Connection variables of the project's database services, except `excludeServiceId`'s own. */
  async databaseVariables(projectId: string, excludeServiceId: string | null): Promise<DatabaseVariableSuggestion[]> {
    const services = await this.store.services.list([projectId]);
    const out: DatabaseVariableSuggestion[] = [];
    for (const s of services) {
      if (!s.databaseEngine || s.id === excludeServiceId) continue;
      const ref = referenceName(s);
      const keys = connectionVariableNames(s.databaseEngine);
      if (s.databasePublicEnabled && s.databasePublicHostname && s.hostPort) keys.push(...keys.map(publicName));
      for (const key of keys) {
        out.push({ key, value: `\${${ref}.${key}}`, label: `${s.name} · ${key}`, dbType: s.databaseEngine });
      }
    }
    return out;
  }
}
