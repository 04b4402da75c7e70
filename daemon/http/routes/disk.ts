// GET /api/system/disk (any key): whether new builds, deploys and backups are paused for lack of
// disk; keys over all projects also see the volumes and the threshold, and may change it.
import { z } from 'zod';
import { route } from '../route-table.js';

const diskPatch = z.strictObject({ minFreeBytes: z.number().int('must be a whole number of bytes').nullable() });

export const diskRoutes = {
  ...route('system.disk', { handler: async ({ access }, { core }) => ({ disk: await core.disk.state(access) }) }),
  ...route('system.disk.patch', {
    body: diskPatch,
    handler: async ({ access, body }, { core }) => ({ disk: await core.disk.patch(access, body) }),
  }),
};
