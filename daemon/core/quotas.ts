// Per-project quotas, so one tenant cannot fill the host's disk: services, backups (count and total
// bytes over all the project's database services) and the images kept for rollbacks per service.
// A project stores only what it overrides (null = the server's default); the server's defaults are
// a setting (else the configuration's). Changing either needs a write key over all projects (the
// server's administrator); a project's keys may read its quotas and usage. Refusals are 409
// `quota_exceeded`, naming the quota and how to raise it.
import type { ProjectQuotas, ProjectQuotasAnswer, QuotaValues } from '../../shared/types.js';
import { visibleProject, type Access } from './access.js';
import type { Clock } from './clock.js';
import { Conflict, InvalidInput } from './errors.js';
import type { QuotaOverrides } from './ports/quota-repo.js';
import type { ServiceRecord } from './records.js';
import type { Store } from './ports/store.js';
import { NO_EVENTS, type EventSink } from './events.js';

const QUOTA_FIELDS = ['maxServices', 'maxBackups', 'maxBackupBytes', 'maxImagesPerService'] as const;
type QuotaField = (typeof QUOTA_FIELDS)[number];

/** A request's quotas: a number sets a field, null goes back to the default, absent keeps it. */
export type QuotaInput = { [F in QuotaField]?: number | null | undefined };

/** What one project holds against its quotas. */
export interface QuotaUsage {
  services: number;
  backups: number;
  backupBytes: number;
}

/** The settings key of the server-wide defaults (JSON). */
const QUOTA_DEFAULTS_SETTING = 'quotaDefaults';

/** Sanity bounds for every field: at least one (zero would make a project unusable), at most these. */
const CEILING: QuotaValues = { maxServices: 100_000, maxBackups: 1_000_000, maxBackupBytes: 2 ** 50, maxImagesPerService: 100 };
const MINIMUM: QuotaValues = { maxServices: 1, maxBackups: 1, maxBackupBytes: 1, maxImagesPerService: 1 };

const HOW_TO_RAISE = 'a key over all projects can raise it (PATCH /api/projects/:projectId/quotas, or `berth quotas set`)';

export class Quotas {
  constructor(
    private store: Store,
    private clock: Clock,
    /** The configuration's defaults, used where the server-wide setting says nothing. */
    private configured: QuotaValues,
    private events: EventSink = NO_EVENTS,
  ) {}

  async get(access: Access, projectIdOrSlug: string): Promise<ProjectQuotasAnswer> {
    const project = await visibleProject(this.store, access, projectIdOrSlug);
    return this.answer(project.id);
  }

  async patch(access: Access, projectIdOrSlug: string, input: QuotaInput): Promise<ProjectQuotasAnswer> {
    access.requireWrite();
    const project = await visibleProject(this.store, access, projectIdOrSlug);
    access.requireAllProjects("changing a project's quotas");
    const next = { ...(await this.overrides(project.id)), ...checkInput(input) };
    await this.store.quotas.put(project.id, next, this.clock.now());
    this.events.publish({ type: 'quotas', projectId: project.id, data: { projectId: project.id } });
    return this.answer(project.id);
  }

  /** The server-wide defaults (any key over all projects may read them). */
  async getDefaults(access: Access): Promise<QuotaValues> {
    access.requireAllProjects('reading the default quotas');
    return this.defaults();
  }

  async patchDefaults(access: Access, input: QuotaInput): Promise<QuotaValues> {
    access.requireWrite();
    access.requireAllProjects('changing the default quotas');
    const checked = checkInput(input);
    const stored = await this.storedDefaults();
    for (const field of QUOTA_FIELDS) {
      if (checked[field] === null) delete stored[field];
      else if (checked[field] !== undefined) stored[field] = checked[field];
    }
    await this.store.settings.set(QUOTA_DEFAULTS_SETTING, JSON.stringify(stored), this.clock.now());
    this.events.publish({ type: 'settings', allProjects: true, data: { area: 'quota-defaults' } });
    return this.defaults();
  }

  /** The quotas that apply to a project now. */
  async effective(projectId: string): Promise<QuotaValues> {
    const [defaults, own] = await Promise.all([this.defaults(), this.overrides(projectId)]);
    return {
      maxServices: own.maxServices ?? defaults.maxServices,
      maxBackups: own.maxBackups ?? defaults.maxBackups,
      maxBackupBytes: own.maxBackupBytes ?? defaults.maxBackupBytes,
      maxImagesPerService: own.maxImagesPerService ?? defaults.maxImagesPerService,
    };
  }

  async usage(projectId: string): Promise<QuotaUsage> {
    const services = await this.store.services.list([projectId]);
    let backups = 0;
    let backupBytes = 0;
    for (const s of services.filter((x) => x.kind === 'database')) {
      for (const b of await this.store.backups.listByService(s.id)) {
        // a failed backup has no file; a running one will have one
        if (b.status === 'failed') continue;
        backups++;
        backupBytes += b.sizeBytes;
      }
    }
    return { services: services.length, backups, backupBytes };
  }

  /** Refuses a new service (or one moved in) when the project already has as many as its quota allows. */
  async requireServiceRoom(projectId: string): Promise<void> {
    const { maxServices } = await this.effective(projectId);
    const count = (await this.store.services.list([projectId])).length;
    if (count >= maxServices) {
      throw new Conflict(`the project has ${count} service(s), its quota maxServices is ${maxServices}: delete a service first, or ${HOW_TO_RAISE}`, 'quota_exceeded');
    }
  }

  /** Why a new backup of this database would go over its project's quotas, or null when it fits. */
  async backupOverQuota(service: ServiceRecord): Promise<string | null> {
    const [quotas, usage] = await Promise.all([this.effective(service.projectId), this.usage(service.projectId)]);
    if (usage.backups >= quotas.maxBackups) {
      return `the project holds ${usage.backups} backup(s), its quota maxBackups is ${quotas.maxBackups}: delete old backups first, or ${HOW_TO_RAISE}`;
    }
    if (usage.backupBytes >= quotas.maxBackupBytes) {
      return `the project's backups take ${usage.backupBytes} bytes, its quota maxBackupBytes is ${quotas.maxBackupBytes}: delete old backups first, or ${HOW_TO_RAISE}`;
    }
    return null;
  }

  /** Refuses a manual backup over the project's backup quotas (409 quota_exceeded). */
  async requireBackupRoom(service: ServiceRecord): Promise<void> {
    const over = await this.backupOverQuota(service);
    if (over) throw new Conflict(over, 'quota_exceeded');
  }

  /** How many images of successful deployments each service of the project keeps for rollbacks. */
  async imagesPerService(projectId: string): Promise<number> {
    return (await this.effective(projectId)).maxImagesPerService;
  }

  private async answer(projectId: string): Promise<ProjectQuotasAnswer> {
    const [quotas, overrides, usage] = await Promise.all([this.effective(projectId), this.overrides(projectId), this.usage(projectId)]);
    return { quotas, overrides, usage };
  }

  private async overrides(projectId: string): Promise<ProjectQuotas> {
    return (await this.store.quotas.get(projectId)) ?? { maxServices: null, maxBackups: null, maxBackupBytes: null, maxImagesPerService: null };
  }

  private async defaults(): Promise<QuotaValues> {
    return { ...this.configured, ...(await this.storedDefaults()) };
  }

  private async storedDefaults(): Promise<Partial<QuotaValues>> {
    const raw = await this.store.settings.get(QUOTA_DEFAULTS_SETTING);
    if (!raw) return {};
    try {
      const parsed = JSON.parse(raw) as Record<string, unknown>;
      const out: Partial<QuotaValues> = {};
      for (const f of QUOTA_FIELDS) if (typeof parsed[f] === 'number') out[f] = parsed[f];
      return out;
    } catch {
      return {};
    }
  }
}

function checkInput(input: QuotaInput): Partial<QuotaOverrides> {
  const out: Partial<QuotaOverrides> = {};
  for (const field of QUOTA_FIELDS) {
    const v = input[field];
    if (v === undefined) continue;
    if (v !== null && (!Number.isSafeInteger(v) || v < MINIMUM[field] || v > CEILING[field])) {
      throw new InvalidInput(`${field} must be a whole number from ${MINIMUM[field]} to ${CEILING[field]}, or null for the server's default`);
    }
    out[field] = v;
  }
  if (Object.keys(out).length === 0) throw new InvalidInput(`give at least one of ${QUOTA_FIELDS.join(', ')}`);
  return out;
}
