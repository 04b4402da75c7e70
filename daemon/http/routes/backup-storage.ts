// Remote (S3-compatible) backup storage: one system setting, its secret sealed at rest and never
// returned. GET and PUT answer with the result of a real call to the storage.
import type Router from '@koa/router';
import { z } from 'zod';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse } from '../validate.js';

const required = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

// Strict: a misspelt field (secretKey) must not pass silently.
const storagePut = z.strictObject({
  endpoint: required(2048),
  region: required(64),
  bucket: required(63),
  prefix: z.string().max(512, 'must be at most 512 characters').optional(),
  accessKeyId: required(256),
  secretAccessKey: z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters').optional(),
  forcePathStyle: z.boolean().optional(),
});

export function backupStorageRoutes(router: Router, { core }: AppServices): void {
  router.get('/api/system/backup-storage', async (ctx) => {
    ctx.body = await core.backupStorage.get(accessOf(ctx));
  });

  router.put('/api/system/backup-storage', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('changing backup storage settings');
    const input = parse(storagePut, ctx.request.body);
    ctx.body = await core.backupStorage.put(access, input);
  });

  router.delete('/api/system/backup-storage', async (ctx) => {
    await core.backupStorage.delete(accessOf(ctx));
    ctx.body = { ok: true };
  });
}
