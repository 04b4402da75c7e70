// API keys: list, create, revoke. The table asks a write key over all projects, even to list them.
import { keyView } from '../../core/views.js';
import { route } from '../route-table.js';
import { keyCreate } from '../validate.js';

export const keyRoutes = {
  ...route('keys.list', {
    handler: async (_req, { core }) => ({ keys: (await core.keys.list()).map(keyView) }),
  }),
  ...route('keys.create', {
    body: keyCreate,
    handler: async ({ body }, { core }) => {
      const { key, token } = await core.keys.create(body);
      return { key: keyView(key), token };
    },
  }),
  ...route('keys.revoke', {
    handler: async ({ params }, { core }) => {
      await core.keys.revoke(params.keyId);
      return { ok: true };
    },
  }),
};
