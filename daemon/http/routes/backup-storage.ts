// Remote (S3-compatible) backup storage: one system setting, its secret sealed at rest and never
// returned. GET and PUT answer with the result of a real call to the storage.
import { z } from 'zod';
import { route } from '../route-table.js';

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

export const backupStorageRoutes = {
  ...route('backup-storage.get', { handler: ({ access }, { core }) => core.backupStorage.get(access) }),
  ...route('backup-storage.put', { body: storagePut, handler: ({ access, body }, { core }) => core.backupStorage.put(access, body) }),
  ...route('backup-storage.delete', {
    handler: async ({ access }, { core }) => {
      await core.backupStorage.delete(access);
      return { ok: true };
    },
  }),
};
