// The spec's backup, restore, download and import use cases for database services: the key and
// the service are checked here (a database the key can see; writes need a write key), then the
// runner (daemon/backups/backups.ts, through the BackupJobs port) does the work.
import { enginesImportingFrom } from '../../shared/engines.js';
import { visibleService, type Access } from './access.js';
import { InvalidInput } from './errors.js';
import type { BackupDownload, BackupJobs, BackupListing, ImportReach, RestoreResult, SettingsPatch } from './ports/backup-jobs.js';
import type { BackupRecord, BackupSettingsRecord, BackupStorage, ImportRecord, ImportSource } from './ports/backups-repo.js';
import type { DiskSpace } from './disk-space.js';
import type { EventSink } from './events.js';
import type { Quotas } from './quotas.js';
import type { ServiceRecord } from './records.js';
import type { Store } from './ports/store.js';

export class Backups {
  constructor(
    private readonly store: Store,
    private readonly jobs: BackupJobs,
    private readonly quotas: Quotas,
    private readonly disk: DiskSpace,
    private readonly events: EventSink,
  ) {}

  async list(access: Access, serviceId: string): Promise<BackupListing> {
    return this.jobs.list(await this.databaseService(access, serviceId));
  }

  async patchSettings(access: Access, serviceId: string, patch: SettingsPatch): Promise<BackupSettingsRecord> {
    access.requireWrite();
    const service = await this.databaseService(access, serviceId);
    const settings = await this.jobs.patchSettings(service, patch);
    this.events.publish({ type: 'backup-settings', projectId: service.projectId, data: { serviceId: service.id, projectId: service.projectId } });
    return settings;
  }

  /** Starts a backup in the background; answers at once with the `running` record. */
  async create(access: Access, serviceId: string, storage: BackupStorage): Promise<BackupRecord> {
    access.requireWrite();
    const service = await this.databaseService(access, serviceId);
    // refused before anything is recorded: over the project's backup quotas, or the disk is low
    await this.quotas.requireBackupRoom(service);
    await this.disk.requireRoom('the backup was');
    return this.jobs.start(service, storage, 'manual');
  }

  async restore(access: Access, serviceId: string, backupId: string): Promise<RestoreResult> {
    access.requireWrite();
    return this.jobs.restore(await this.databaseService(access, serviceId), backupId);
  }

  /** Starts a restore test of a backup into a throwaway container; answers the backup with its `running` verification. */
  async verify(access: Access, serviceId: string, backupId: string): Promise<BackupRecord> {
    access.requireWrite();
    return this.jobs.verify(await this.databaseService(access, serviceId), backupId);
  }

  async download(access: Access, serviceId: string, backupId: string): Promise<BackupDownload> {
    return this.jobs.download(await this.databaseService(access, serviceId), backupId);
  }

  async delete(access: Access, serviceId: string, backupId: string): Promise<void> {
    access.requireWrite();
    await this.jobs.delete(await this.databaseService(access, serviceId), backupId);
  }

  async listImports(access: Access, serviceId: string): Promise<ImportRecord[]> {
    return this.jobs.listImports(await this.databaseService(access, serviceId));
  }

  async startImport(access: Access, serviceId: string, source: ImportSource, sourceUrl: string): Promise<ImportRecord> {
    access.requireWrite();
    const service = await this.databaseService(access, serviceId);
    const engine = service.databaseEngine!;
    const into = enginesImportingFrom(source);
    if (!into.includes(engine)) throw new InvalidInput(`${source} imports into ${into.join(' or ')} services; this one runs ${engine}`);
    return this.jobs.startImport(service, source, sourceUrl, await this.reachOf(access));
  }

  /** A key over selected projects reaches, on this host, only its own projects' databases. */
  private async reachOf(access: Access): Promise<ImportReach> {
    const projects = access.key.projects;
    if (projects === 'all') return { anywhere: true };
    const own = await this.store.services.list(projects);
    return { anywhere: false, ownHostPorts: new Set(own.filter((s) => s.kind === 'database' && s.hostPort !== null).map((s) => s.hostPort!)) };
  }

  private async databaseService(access: Access, serviceId: string): Promise<ServiceRecord> {
    const service = await visibleService(this.store, access, serviceId);
    if (service.kind !== 'database' || !service.databaseEngine) throw new InvalidInput('this service is not a database', 'not_a_database');
    return service;
  }
}
