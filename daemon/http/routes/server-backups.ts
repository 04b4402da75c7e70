// Berth's own backup from the API: its settings (the passphrase stored sealed, answered only as
// `passphraseSet`), a run now, downloads and deletions of the archives. core/server-backups.ts.
import { z } from 'zod';
import type { ServerBackupsInput } from '../../core/server-backups.js';
import { route } from '../route-table.js';

// the passphrase's rule (12 characters at least) is core's; this only bounds the size
const passphrase = z.string().max(1024, 'must be at most 1024 characters');

// Strict: a misspelt field (passPhrase) must not pass silently.
const patchBody = z.strictObject({
  schedule: z.string().max(200, 'must be at most 200 characters').nullable().optional(),
  storageId: z.string().max(100, 'must be at most 100 characters').nullable().optional(),
  keep: z.number().int('must be a whole number').optional(),
  passphrase: passphrase.optional(),
}) satisfies z.ZodType<ServerBackupsInput>;

const runBody = z.strictObject({ passphrase: passphrase.optional() });

export const serverBackupRoutes = {
  ...route('system.backups', { handler: ({ access }, { core }) => core.serverBackups.get(access) }),
  ...route('system.backups.patch', {
    body: patchBody,
    // storageId is checked by core (an unknown id is a 400 there, naming the ids it takes)
    handler: ({ access, body }, { core }) => core.serverBackups.patch(access, body),
  }),
  ...route('system.backups.run', {
    body: runBody,
    handler: async ({ ctx, access, body }, { core }) => {
      const run = await core.serverBackups.start(access, body);
      // accepted: the run goes on in the background, GET follows it
      ctx.status = 202;
      return { run };
    },
  }),
  ...route('system.backups.download', {
    handler: async ({ ctx, access, params }, { core }) => {
      const file = await core.serverBackups.download(access, params.runId);
      ctx.set('Content-Type', 'application/octet-stream');
      ctx.set('Content-Disposition', `attachment; filename="${file.fileName}"`);
      if (file.sizeBytes !== null) ctx.length = file.sizeBytes;
      ctx.body = file.body;
    },
  }),
  ...route('system.backups.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.serverBackups.delete(access, params.runId);
      return { ok: true };
    },
  }),
};
