// Public status pages (issue 30): opt-in per project, served by Caddy on a hostname of the owner's
// choosing without a key. The page is rendered here into static HTML (core/status-page-html.ts) and
// stored; Caddy serves the stored page from its own configuration, so it keeps the last state while
// the daemon is down. It shows only what the owner chose: a title, the chosen services under the
// labels the owner typed, their state, 90 days of uptime and the incidents' times. Never a
// service's or project's name, an id, an address or an error.
import type { StatusPage, StatusPageInput, StatusPageService } from '../../shared/types.js';
import { visibleProject, type Access } from './access.js';
import type { Clock } from './clock.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import type { EventSink } from './events.js';
import { generatedOwner } from './generated-names.js';
import { normalizeHostname } from './hostname.js';
import type { ProxyPort } from './ports/proxy.js';
import type { StatusPageRecord, UptimeSource } from './ports/status-pages.js';
import type { Store } from './ports/store.js';
import { renderStatusPage, STATUS_PAGE_DAYS } from './status-page-html.js';

const MAX_SERVICES = 50;
const MAX_LABEL = 60;
const MAX_TITLE = 80;

export class StatusPages {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly proxy: ProxyPort,
    private readonly events: EventSink,
    private readonly uptime: UptimeSource,
  ) {}

  /** The project's page; null when it has none. */
  async get(access: Access, projectId: string): Promise<StatusPage | null> {
    const project = await visibleProject(this.store, access, projectId);
    const page = await this.store.statusPages.get(project.id);
    return page ? this.view(page) : null;
  }

  async put(access: Access, projectId: string, input: StatusPageInput): Promise<StatusPage> {
    access.requireWrite();
    const project = await visibleProject(this.store, access, projectId);
    const hostname = normalizeHostname(input.hostname);
    const title = (input.title ?? project.name).trim();
    if (title.length === 0 || title.length > MAX_TITLE) throw new InvalidInput(`title must be 1-${MAX_TITLE} characters`);
    const services = await this.checkServices(project.id, input.services);
    const owner = await generatedOwner(this.store, hostname, null, access.allProjects, project.id);
    if (owner) throw new Conflict(`hostname ${hostname} is ${owner}; choose another for the status page`, 'hostname_taken');
    if (await this.store.domains.findByHostname(hostname)) throw new Conflict(`hostname ${hostname} is already used by a service on this server`, 'hostname_taken');
    const existing = await this.store.statusPages.get(project.id);
    const now = this.clock.now();
    try {
      await this.store.statusPages.put({ projectId: project.id, enabled: input.enabled ?? true, hostname, title, services, createdAt: existing?.createdAt ?? now, updatedAt: now });
    } catch (err) {
      if (this.store.isUniqueViolation(err)) throw new Conflict(`hostname ${hostname} is already used by another project's status page`, 'hostname_taken');
      throw err;
    }
    await this.render(project.id, true);
    // a DELETE of the page or of its project may land between the write and this read (the fuzz suite's race)
    const saved = await this.store.statusPages.get(project.id);
    if (!saved) throw new NotFound('the status page was removed while it was being saved (it or its project was deleted meanwhile)');
    this.announce(project.id, existing ? 'updated' : 'created');
    return this.view(saved);
  }

  async remove(access: Access, projectId: string): Promise<void> {
    access.requireWrite();
    const project = await visibleProject(this.store, access, projectId);
    // removing a page that is not there is done already
    if (!(await this.store.statusPages.get(project.id))) return;
    await this.store.statusPages.delete(project.id);
    await this.proxy.apply();
    this.announce(project.id, 'deleted');
  }

  /** Renders the page again from the current uptime data and hands it to Caddy when it changed (or `force`: its settings did). */
  async render(projectId: string, force = false): Promise<void> {
    if ((await this.renderPage(projectId, force)) || force) await this.proxy.apply();
  }

  /** Renders every page (a new hour, a check's state changed); Caddy is loaded once if any served page changed. */
  async renderAll(serviceId?: string): Promise<void> {
    let changed = false;
    for (const page of await this.store.statusPages.list()) {
      if (serviceId !== undefined && !page.services.some((s) => s.serviceId === serviceId)) continue;
      changed = (await this.renderPage(page.projectId, false)) || changed;
    }
    if (changed) await this.proxy.apply();
  }

  /** Stores the page's HTML when it changed; true when Caddy serves it (enabled) and it changed. */
  private async renderPage(projectId: string, force: boolean): Promise<boolean> {
    const page = await this.store.statusPages.get(projectId);
    if (!page) return false;
    const now = this.clock.now();
    const services = [];
    for (const s of page.services) {
      // a service deleted or moved to another project since is left off the page (its label stays in the settings until changed)
      if ((await this.store.services.get(s.serviceId))?.projectId !== projectId) continue;
      services.push({ label: s.label, uptime: await this.uptime.uptimeOf(s.serviceId, STATUS_PAGE_DAYS, now) });
    }
    const html = renderStatusPage({ title: page.title, services, now });
    if (html === page.html && !force) return false;
    await this.store.statusPages.setHtml(projectId, html, now);
    return page.enabled;
  }

  private async checkServices(projectId: string, input: readonly StatusPageService[]): Promise<StatusPageService[]> {
    if (input.length > MAX_SERVICES) throw new InvalidInput(`services: at most ${MAX_SERVICES}`);
    const seen = new Set<string>();
    const out: StatusPageService[] = [];
    for (const [i, s] of input.entries()) {
      const service = await this.store.services.get(s.serviceId);
      // another project's service is unknown here, exactly like one that does not exist
      if (!service || service.projectId !== projectId) throw new InvalidInput(`services.${i}.serviceId: no such service in this project`, 'unknown_service');
      if (seen.has(service.id)) throw new InvalidInput(`services.${i}.serviceId: listed twice`);
      seen.add(service.id);
      const label = s.label.trim();
      if (label.length === 0 || label.length > MAX_LABEL) throw new InvalidInput(`services.${i}.label must be 1-${MAX_LABEL} characters`);
      out.push({ serviceId: service.id, label });
    }
    return out;
  }

  private async view(page: StatusPageRecord): Promise<StatusPage> {
    const scheme = (await this.store.settings.get('httpsMode'))?.trim() === 'http' ? 'http' : 'https';
    return {
      projectId: page.projectId,
      enabled: page.enabled,
      hostname: page.hostname,
      title: page.title,
      services: page.services,
      url: `${scheme}://${page.hostname}/`,
      renderedAt: page.renderedAt,
      createdAt: page.createdAt,
      updatedAt: page.updatedAt,
    };
  }

  private announce(projectId: string, action: 'created' | 'updated' | 'deleted'): void {
    this.events.publish({ type: 'status-page', projectId, data: { projectId, action } });
  }
}
