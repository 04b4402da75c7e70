// A project's public status page: read, set up or change (PUT, the whole settings), remove.
import { z } from 'zod';
import type { StatusPageInput } from '../../../shared/types.js';
import { route } from '../route-table.js';

const statusPageBody = z.strictObject({
  enabled: z.boolean().optional(),
  hostname: z.string().max(1000, 'must be at most 1000 characters'),
  title: z.string().max(200, 'must be at most 200 characters').optional(),
  services: z
    .array(z.strictObject({ serviceId: z.string().max(100, 'must be at most 100 characters'), label: z.string().max(200, 'must be at most 200 characters') }))
    .max(200, 'must have at most 200 items'),
}) satisfies z.ZodType<StatusPageInput>;

export const statusPageRoutes = {
  ...route('status-page.get', { handler: async ({ access, params }, { core }) => ({ statusPage: await core.statusPages.get(access, params.projectId) }) }),
  ...route('status-page.put', {
    body: statusPageBody,
    handler: async ({ access, params, body }, { core }) => ({ statusPage: await core.statusPages.put(access, params.projectId, body) }),
  }),
  ...route('status-page.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.statusPages.remove(access, params.projectId);
      return { ok: true };
    },
  }),
};
