// The spec's backup, restore, download and import endpoints, and the backup settings PATCH.
import type Router from '@koa/router';
import { z } from 'zod';
import { BACKUP_STORAGES } from '../../core/ports/backups-repo.js';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse } from '../validate.js';

const storageBody = z.object({ storage: z.enum(BACKUP_STORAGES).default('disk') });
const keep = z.number().int('must be an integer').min(1).max(1000).optional();
const settingsPatch = z.strictObject({
  storage: z.enum(BACKUP_STORAGES).optional(),
  automaticEnabled: z.boolean().optional(),
  dailyEnabled: z.boolean().optional(),
  weeklyEnabled: z.boolean().optional(),
  monthlyEnabled: z.boolean().optional(),
  keepDaily: keep,
  keepWeekly: keep,
  keepMonthly: keep,
});
const importBody = z.object({ sourceUrl: z.string().min(1, 'must not be empty').max(4096) });

export function backupRoutes(router: Router, { core }: AppServices): void {
  const base = '/api/services/:serviceId/database';

  router.get(`${base}/backups`, async (ctx) => {
    ctx.body = await core.backups.list(accessOf(ctx), ctx.params.serviceId!);
  });

  router.post(`${base}/backups`, async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const { storage } = parse(storageBody, ctx.request.body ?? {});
    ctx.body = { backup: await core.backups.create(access, ctx.params.serviceId!, storage) };
  });

  router.patch(`${base}/backups/settings`, async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    ctx.body = { settings: await core.backups.patchSettings(access, ctx.params.serviceId!, parse(settingsPatch, ctx.request.body)) };
  });

  router.post(`${base}/backups/:backupId/restore`, async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    ctx.body = await core.backups.restore(access, ctx.params.serviceId!, ctx.params.backupId!);
  });

  router.get(`${base}/backups/:backupId/download`, async (ctx) => {
    const file = await core.backups.download(accessOf(ctx), ctx.params.serviceId!, ctx.params.backupId!);
    ctx.set('Content-Type', 'application/octet-stream');
    ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
    ctx.length = file.sizeBytes;
    ctx.body = file.body;
  });

  router.delete(`${base}/backups/:backupId`, async (ctx) => {
    await core.backups.delete(accessOf(ctx), ctx.params.serviceId!, ctx.params.backupId!);
    ctx.body = { ok: true };
  });

  router.get(`${base}/imports`, async (ctx) => {
    ctx.body = { imports: await core.backups.listImports(accessOf(ctx), ctx.params.serviceId!) };
  });

  for (const source of ['postgres-url', 'redis-url'] as const) {
    router.post(`${base}/import/${source}`, async (ctx) => {
      const access = accessOf(ctx);
      access.requireWrite();
      const { sourceUrl } = parse(importBody, ctx.request.body);
      const i = await core.backups.startImport(access, ctx.params.serviceId!, source, sourceUrl);
      ctx.body = { result: { id: i.id, status: i.status, source: i.source, createdAt: i.createdAt } };
    });
  }
}
