// The spec's backup, restore, download and import endpoints, and the backup settings PATCH.
import { z } from 'zod';
import type { Access } from '../../core/access.js';
import { BACKUP_STORAGES } from '../../core/ports/backups-repo.js';
import { validCron } from '../../core/cron-match.js';
import type { AppServices } from '../route-module.js';
import { route } from '../route-table.js';

/** A backup's body and the settings PATCH, the same for a database's backups and a volume's (routes/volume-backups.ts). */
export const storageBody = z.object({ storage: z.enum(BACKUP_STORAGES).default('disk') });
const keep = z.number().int('must be an integer').min(1).max(1000).optional();
export const settingsPatch = z.strictObject({
  storage: z.enum(BACKUP_STORAGES).optional(),
  automaticEnabled: z.boolean().optional(),
  dailyEnabled: z.boolean().optional(),
  weeklyEnabled: z.boolean().optional(),
  monthlyEnabled: z.boolean().optional(),
  keepDaily: keep,
  keepWeekly: keep,
  keepMonthly: keep,
});
const gfsKeep = z.number().int('must be an integer').min(0).max(1000).nullable();
/** A database's settings add the restore-test schedule and GFS retention (not a volume's). */
const databaseSettingsPatch = settingsPatch.extend({
  verifySchedule: z.string().max(200).refine(validCron, 'must be a 5-field cron expression (minute hour day-of-month month day-of-week, UTC)').nullable().optional(),
  gfs: z
    .strictObject({ hourly: gfsKeep.default(null), daily: gfsKeep.default(null), weekly: gfsKeep.default(null), monthly: gfsKeep.default(null) })
    .nullable()
    .optional(),
});
const importBody = z.object({ sourceUrl: z.string().min(1, 'must not be empty').max(4096) });

const importFrom =
  (source: 'postgres-url' | 'redis-url') =>
  async ({ access, params, body }: { access: Access; params: { serviceId: string }; body: z.output<typeof importBody> }, { core }: AppServices) => {
    const i = await core.backups.startImport(access, params.serviceId, source, body.sourceUrl);
    return { result: { id: i.id, status: i.status, source: i.source, createdAt: i.createdAt } };
  };

export const backupRoutes = {
  ...route('backups.list', { handler: ({ access, params }, { core }) => core.backups.list(access, params.serviceId) }),
  ...route('backups.create', {
    body: storageBody,
    handler: async ({ access, params, body }, { core }) => ({ backup: await core.backups.create(access, params.serviceId, body.storage) }),
  }),
  ...route('backups.settings.patch', {
    body: databaseSettingsPatch,
    handler: async ({ access, params, body }, { core }) => ({ settings: await core.backups.patchSettings(access, params.serviceId, body) }),
  }),
  ...route('backups.restore', { handler: ({ access, params }, { core }) => core.backups.restore(access, params.serviceId, params.backupId) }),
  ...route('backups.verify', {
    handler: async ({ ctx, access, params }, { core }) => {
      const backup = await core.backups.verify(access, params.serviceId, params.backupId);
      ctx.status = 202;
      return { backup };
    },
  }),
  ...route('backups.download', {
    handler: async ({ ctx, access, params }, { core }) => {
      const file = await core.backups.download(access, params.serviceId, params.backupId);
      ctx.set('Content-Type', 'application/octet-stream');
      ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
      ctx.length = file.sizeBytes;
      ctx.body = file.body;
    },
  }),
  ...route('backups.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.backups.delete(access, params.serviceId, params.backupId);
      return { ok: true };
    },
  }),
  ...route('imports.list', { handler: async ({ access, params }, { core }) => ({ imports: await core.backups.listImports(access, params.serviceId) }) }),
  ...route('imports.postgres-url', { body: importBody, handler: importFrom('postgres-url') }),
  ...route('imports.redis-url', { body: importBody, handler: importFrom('redis-url') }),
};
