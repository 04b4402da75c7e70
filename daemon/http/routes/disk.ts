// GET /api/system/disk (any key): whether new builds, deploys and backups are paused for lack of
// disk; keys over all projects also see the volumes and the threshold, and may change it.
import type Router from '@koa/router';
import { z } from 'zod';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse } from '../validate.js';

const diskPatch = z.strictObject({ minFreeBytes: z.number().int('must be a whole number of bytes').nullable() });

export function diskRoutes(router: Router, { core }: AppServices): void {
  router.get('/api/system/disk', async (ctx) => {
    ctx.body = { disk: await core.disk.state(accessOf(ctx)) };
  });
  router.patch('/api/system/disk', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('changing the free disk threshold');
    const input = parse(diskPatch, ctx.request.body);
    ctx.body = { disk: await core.disk.patch(access, input) };
  });
}
