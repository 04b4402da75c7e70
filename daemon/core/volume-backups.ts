// Backups of a service's volumes (issue 28), with the database backups' shapes and verbs: the key
// and the service are checked here (a service the key can see; writes need a write key), and the
// volume must be one the service mounts (else 404, as an unknown one). The runner
// (daemon/backups/volume-backups.ts, through the VolumeBackupJobs port) does the work.
import { visibleService, type Access } from './access.js';
import { NotFound } from './errors.js';
import type { BackupDownload, BackupListing, ServiceVolumeRef, SettingsPatch, VolumeBackupJobs, VolumeRestoreResult } from './ports/backup-jobs.js';
import type { BackupRecord, BackupSettingsRecord, BackupStorage } from './ports/backups-repo.js';
import type { DiskSpace } from './disk-space.js';
import type { EventSink } from './events.js';
import type { Quotas } from './quotas.js';
import type { ServiceRecord } from './records.js';
import type { Store } from './ports/store.js';

/** The volumes a service mounts (the volume model's `volumes`; none on a service that has none). */
export function mountedVolumes(service: ServiceRecord): ServiceRecord['volumes'] {
  return service.volumes;
}

export class VolumeBackups {
  constructor(
    private readonly store: Store,
    private readonly jobs: VolumeBackupJobs,
    private readonly quotas: Quotas,
    private readonly disk: DiskSpace,
    private readonly events: EventSink,
    /** The Docker name of a project's volume (daemon/docker/volumes.ts). */
    private readonly dockerName: (projectId: string, name: string) => string,
  ) {}

  async list(access: Access, serviceId: string, volume: string): Promise<BackupListing> {
    const [service, ref] = await this.target(access, serviceId, volume);
    return this.jobs.list(service, ref);
  }

  async patchSettings(access: Access, serviceId: string, volume: string, patch: SettingsPatch): Promise<BackupSettingsRecord> {
    access.requireWrite();
    const [service, ref] = await this.target(access, serviceId, volume);
    const settings = await this.jobs.patchSettings(service, ref, patch);
    this.events.publish({ type: 'backup-settings', projectId: service.projectId, data: { serviceId: service.id, projectId: service.projectId } });
    return settings;
  }

  /** Starts a backup in the background; answers at once with the `running` record. */
  async create(access: Access, serviceId: string, volume: string, storage: BackupStorage): Promise<BackupRecord> {
    access.requireWrite();
    const [service, ref] = await this.target(access, serviceId, volume);
    await this.quotas.requireBackupRoom(service);
    await this.disk.requireRoom('the backup was');
    return this.jobs.start(service, ref, storage, 'manual');
  }

  async restore(access: Access, serviceId: string, volume: string, backupId: string): Promise<VolumeRestoreResult> {
    access.requireWrite();
    const [service, ref] = await this.target(access, serviceId, volume);
    return this.jobs.restore(service, ref, backupId);
  }

  async download(access: Access, serviceId: string, volume: string, backupId: string): Promise<BackupDownload & { checksum: string }> {
    const [service, ref] = await this.target(access, serviceId, volume);
    return this.jobs.download(service, ref, backupId);
  }

  async delete(access: Access, serviceId: string, volume: string, backupId: string): Promise<void> {
    access.requireWrite();
    const [service, ref] = await this.target(access, serviceId, volume);
    await this.jobs.delete(service, ref, backupId);
  }

  private async target(access: Access, serviceId: string, volume: string): Promise<[ServiceRecord, ServiceVolumeRef]> {
    const service = await visibleService(this.store, access, serviceId);
    const mounted = mountedVolumes(service).find((v) => v.name === volume);
    if (!mounted) throw new NotFound('volume not found');
    return [service, volumeRef(service, mounted, this.dockerName)];
  }
}

export function volumeRef(service: ServiceRecord, mounted: { name: string; mountPath: string }, dockerName: (projectId: string, name: string) => string): ServiceVolumeRef {
  return { name: mounted.name, mountPath: mounted.mountPath, dockerName: dockerName(service.projectId, mounted.name) };
}
