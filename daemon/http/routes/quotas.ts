// Per-project quotas (core/quotas.ts): a project's keys read its quotas and usage; only a write key
// over all projects changes them, or the server's defaults.
import type Router from '@koa/router';
import { z } from 'zod';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse } from '../validate.js';

const quota = z.number().int('must be a whole number').nullable().optional();
// Strict: a misspelt quota (maxservices) must not pass silently.
const quotasPatch = z.strictObject({ maxServices: quota, maxBackups: quota, maxBackupBytes: quota, maxImagesPerService: quota });

export function quotaRoutes(router: Router, { core }: AppServices): void {
  router.get('/api/projects/:projectId/quotas', async (ctx) => {
    ctx.body = await core.quotas.get(accessOf(ctx), ctx.params.projectId!);
  });
  router.patch('/api/projects/:projectId/quotas', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const input = parse(quotasPatch, ctx.request.body);
    ctx.body = await core.quotas.patch(access, ctx.params.projectId!, input);
  });
  router.get('/api/system/quotas', async (ctx) => {
    ctx.body = { quotas: await core.quotas.getDefaults(accessOf(ctx)) };
  });
  router.patch('/api/system/quotas', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('changing the default quotas');
    const input = parse(quotasPatch, ctx.request.body);
    ctx.body = { quotas: await core.quotas.patchDefaults(access, input) };
  });
}
