// Projects: create, read, rename, delete (with everything in them).
import { cloneReachSetting } from './clone-reach.js';
import type { DnsCleanup } from './domains.js';
import type { DatabaseVariableSuggestion, Project, ProxyResult } from '../../shared/types.js';
import { visibleProject, type Access } from './access.js';
import type { Clock } from './clock.js';
import { newId } from './ids.js';
import type { ProxyPort } from './ports/proxy.js';
import type { ProjectRecord } from './records.js';
import { slugify, uniqueSlug } from './slug.js';
import type { Store } from './ports/store.js';
import type { Catalog } from './catalog.js';
import type { DeploymentEngine } from './ports/deployment-engine.js';
import type { EventSink } from './events.js';

export interface ProjectInput {
  name: string;
  description?: string | undefined;
}

export class Projects {
  constructor(
    private store: Store,
    private clock: Clock,
    private proxy: ProxyPort,
    private catalog: Catalog,
    private engine: DeploymentEngine,
    private events: EventSink,
    private dnsGone: DnsCleanup = async () => undefined,
  ) {}

  private announce(p: Pick<ProjectRecord, 'id' | 'name' | 'slug'>, action: 'created' | 'updated' | 'deleted'): void {
    this.events.publish({ type: 'project', projectId: p.id, data: { projectId: p.id, name: p.name, slug: p.slug, action } });
  }

  async list(access: Access): Promise<Project[]> {
    const projects = (await this.store.projects.list()).filter((p) => access.canSee(p.id));
    return this.catalog.projectViews(projects);
  }

  async get(access: Access, idOrSlug: string): Promise<Project> {
    const project = await visibleProject(this.store, access, idOrSlug);
    return (await this.catalog.projectViews([project]))[0]!;
  }

  async create(access: Access, input: ProjectInput): Promise<Project> {
    access.requireWrite();
    access.requireAllProjects('creating a project');
    const now = this.clock.now();
    for (let attempt = 0; ; attempt++) {
      const record: ProjectRecord = {
        id: newId(),
        name: input.name,
        slug: uniqueSlug(slugify(input.name, 'project'), await this.store.projects.slugs()),
        description: input.description ?? '',
        createdAt: now,
        updatedAt: now,
      };
      try {
        await this.store.projects.insert(record);
        this.announce(record, 'created');
        return (await this.catalog.projectViews([record]))[0]!;
      } catch (err) {
        // two creates raced for one slug: pick again
        if (!this.store.isUniqueViolation(err) || attempt >= 3) throw err;
      }
    }
  }

  async patch(access: Access, idOrSlug: string, input: Partial<ProjectInput>): Promise<Project> {
    access.requireWrite();
    const project = await visibleProject(this.store, access, idOrSlug);
    await this.store.projects.update(project.id, {
      name: input.name,
      description: input.description,
      updatedAt: this.clock.now(),
    });
    const after = await this.get(access, project.id);
    this.announce({ id: after.id, name: after.name, slug: after.slug }, 'updated');
    return after;
  }

  async delete(access: Access, idOrSlug: string): Promise<ProxyResult> {
    access.requireWrite();
    const project = await visibleProject(this.store, access, idOrSlug);
    const services = await this.store.services.list([project.id]);
    const domains = await this.store.domains.listByServices(services.map((s) => s.id));
    await this.store.projects.deleteCascade(project.id);
    // heard by the keys that could see the project (a key's project list stays as issued)
    this.announce(project, 'deleted');
    // the reach each service's sources were given (core/clone-reach.ts) is a settings row: it goes too
    for (const s of services) await this.store.settings.delete(cloneReachSetting(s.id));
    await this.dnsGone(domains);
    // The rows go first (the user's intent is recorded even if Docker is down); containers,
    // images and the network follow, and start-up reconciliation removes any that remain.
    await this.engine.projectDeleted(project, services);
    return this.proxy.apply();
  }

  async databaseVariableSuggestions(access: Access, idOrSlug: string): Promise<DatabaseVariableSuggestion[]> {
    const project = await visibleProject(this.store, access, idOrSlug);
    return this.catalog.databaseVariables(project.id, null);
  }
}
