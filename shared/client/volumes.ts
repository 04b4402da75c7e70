// The client's calls for volumes: a project's volumes, and volume backups (the database backups'
// shapes and verbs under /api/services/:serviceId/volumes/:volumeName/backups).
import type { Backup, BackupSettings, BackupStorageKind } from '../types.js';
import { DatabasesClient } from './databases.js';

/** What a volume restore answers: the database restore's shape, and the steps it took (the service stopped, then started again). */
export interface VolumeRestoreAnswer {
  ok: true;
  restoredAt: string;
  backup: { id: string; status: string };
  detail: string[];
}

export class VolumesClient extends DatabasesClient {
  // Backups of a service's volume
  listVolumeBackups(serviceId: string, volumeName: string): Promise<{ backups: Backup[]; settings: BackupSettings; remote: { connected: boolean } }> {
    return this.api('volume-backups.list', { serviceId, volumeName });
  }
  createVolumeBackup(serviceId: string, volumeName: string, storage: BackupStorageKind = 'disk'): Promise<{ backup: Backup }> {
    return this.api('volume-backups.create', { serviceId, volumeName }, { storage });
  }
  patchVolumeBackupSettings(serviceId: string, volumeName: string, patch: Partial<Omit<BackupSettings, 'serviceId' | 'volume' | 'createdAt' | 'updatedAt'>>): Promise<{ settings: BackupSettings }> {
    return this.api('volume-backups.settings.patch', { serviceId, volumeName }, patch);
  }
  /** Stops the service, replaces the volume's contents with the backup's, starts the service again. */
  restoreVolumeBackup(serviceId: string, volumeName: string, backupId: string): Promise<VolumeRestoreAnswer> {
    return this.api('volume-backups.restore', { serviceId, volumeName, backupId });
  }
  /** The tarball's bytes; its checksum (`sha256:<hex>`) is in the `x-berth-checksum` header. */
  async downloadVolumeBackup(serviceId: string, volumeName: string, backupId: string): Promise<{ bytes: Buffer; headers: Headers }> {
    const res = await this.openVolumeBackupDownload(serviceId, volumeName, backupId);
    return { bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
  }
  /** The download response, for streaming a big tarball to disk; throws ApiError on an error status. */
  openVolumeBackupDownload(serviceId: string, volumeName: string, backupId: string, signal?: AbortSignal): Promise<Response> {
    return this.openDownload('volume-backups.download', { serviceId, volumeName, backupId }, signal);
  }
  deleteVolumeBackup(serviceId: string, volumeName: string, backupId: string): Promise<{ ok: true }> {
    return this.api('volume-backups.delete', { serviceId, volumeName, backupId });
  }
}
