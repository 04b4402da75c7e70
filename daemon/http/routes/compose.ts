// Importing a compose file or a template of the gallery into a project (the plan, or the services
// created and first deployed in order), and the gallery itself.
import { z } from 'zod';
import type { ComposeImportInput } from '../../../shared/types.js';
import { route } from '../route-table.js';

// The caps that matter (256 KiB of compose text, the config file rules) are core's, which name
// them; these bound only what a body may carry.
const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const MAX_TEXT = 1024 * 1024;
const stringMap = (entries: number, max: number) =>
  z
    .record(z.string(), text(MAX_TEXT))
    .refine((m) => Object.keys(m).length <= entries, `at most ${entries} entries`)
    .refine((m) => Object.keys(m).every((k) => k.length <= max), `names must be at most ${max} characters`);

const composeImport = z.object({
  compose: text(MAX_TEXT).optional(),
  env: text(MAX_TEXT).optional(),
  files: stringMap(100, 4096).optional(),
  dryRun: z.boolean().optional(),
  repository: z.object({ url: text(2048), branch: text(255).optional() }).optional(),
  template: text(100).optional(),
  variables: stringMap(200, 256).optional(),
  plainImages: z.array(text(100)).max(100).optional(),
}) satisfies z.ZodType<ComposeImportInput>;

export const composeRoutes = {
  ...route('compose.import', {
    body: composeImport,
    handler: ({ access, params, body }, { core }) => core.compose.import(access, params.projectId, body),
  }),
  ...route('templates.list', { handler: (_req, { core }) => core.compose.listTemplates() }),
};
