// Backups of a service's volumes (issue 28): the database backups' shapes and verbs under
// /api/services/:serviceId/volumes/:volumeName/backups.
import { route } from '../route-table.js';
import { settingsPatch, storageBody } from './backups.js';

export const volumeBackupRoutes = {
  ...route('volume-backups.list', { handler: ({ access, params }, { core }) => core.volumeBackups.list(access, params.serviceId, params.volumeName) }),
  ...route('volume-backups.create', {
    body: storageBody,
    handler: async ({ access, params, body }, { core }) => ({ backup: await core.volumeBackups.create(access, params.serviceId, params.volumeName, body.storage) }),
  }),
  ...route('volume-backups.settings.patch', {
    body: settingsPatch,
    handler: async ({ access, params, body }, { core }) => ({ settings: await core.volumeBackups.patchSettings(access, params.serviceId, params.volumeName, body) }),
  }),
  ...route('volume-backups.restore', { handler: ({ access, params }, { core }) => core.volumeBackups.restore(access, params.serviceId, params.volumeName, params.backupId) }),
  ...route('volume-backups.download', {
    handler: async ({ ctx, access, params }, { core }) => {
      const file = await core.volumeBackups.download(access, params.serviceId, params.volumeName, params.backupId);
      ctx.set('Content-Type', 'application/x-tar');
      ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
      // the file's sha256, as the backup record has it (`sha256:<hex>`)
      ctx.set('X-Berth-Checksum', file.checksum);
      ctx.length = file.sizeBytes;
      ctx.body = file.body;
    },
  }),
  ...route('volume-backups.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.volumeBackups.delete(access, params.serviceId, params.volumeName, params.backupId);
      return { ok: true };
    },
  }),
};
