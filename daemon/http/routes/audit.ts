// GET /api/audit: the audit log, newest first, with filters and a cursor (core/audit.ts). Only
// read: no route changes or deletes an entry.
import { z } from 'zod';
import type { AuditQuery } from '../../../shared/types.js';
import { route } from '../route-table.js';
import { singleQuery } from '../query.js';
import { parse } from '../validate.js';

const id = z.string().min(1, 'must not be empty').max(200).optional();
const auditQuery = z.strictObject({
  projectId: id,
  keyId: id,
  action: z.string().max(100, 'must be at most 100 characters').optional(),
  outcome: z.enum(['ok', 'error']).optional(),
  from: z.string().max(40, 'must be an ISO 8601 time').optional(),
  to: z.string().max(40, 'must be an ISO 8601 time').optional(),
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(200, 'must be at most 200').optional(),
  before: z.string().max(20, 'must be the id of an audit entry').optional(),
}) satisfies z.ZodType<AuditQuery, unknown>;

export const auditRoutes = {
  ...route('audit.list', {
    handler: async ({ ctx, access }, { core }) => {
      ctx.set('Cache-Control', 'no-store');
      return core.audit.list(access, parse(auditQuery, singleQuery(ctx)));
    },
  }),
};
