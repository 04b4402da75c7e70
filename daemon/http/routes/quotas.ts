// Per-project quotas (core/quotas.ts): a project's keys read its quotas and usage; only a write key
// over all projects changes them, or the server's defaults.
import { z } from 'zod';
import { route } from '../route-table.js';

const quota = z.number().int('must be a whole number').nullable().optional();
// Strict: a misspelt quota (maxservices) must not pass silently.
const quotasPatch = z.strictObject({ maxServices: quota, maxBackups: quota, maxBackupBytes: quota, maxImagesPerService: quota });

export const quotaRoutes = {
  ...route('quotas.get', { handler: ({ access, params }, { core }) => core.quotas.get(access, params.projectId) }),
  ...route('quotas.patch', {
    body: quotasPatch,
    handler: ({ access, params, body }, { core }) => core.quotas.patch(access, params.projectId, body),
  }),
  ...route('system.quotas', { handler: async ({ access }, { core }) => ({ quotas: await core.quotas.getDefaults(access) }) }),
  ...route('system.quotas.patch', {
    body: quotasPatch,
    handler: async ({ access, body }, { core }) => ({ quotas: await core.quotas.patchDefaults(access, body) }),
  }),
};
