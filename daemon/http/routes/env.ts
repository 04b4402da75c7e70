// A service's environment variables: set one (create or replace by key), delete one.
import { route } from '../route-table.js';
import { envEntry } from '../validate.js';

export const envRoutes = {
  ...route('env.set', {
    body: envEntry,
    handler: async ({ access, params, body }, { core }) => {
      await core.env.upsert(access, params.serviceId, body.key, body.value);
      return { ok: true };
    },
  }),
  ...route('env.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.env.delete(access, params.serviceId, params.envId);
      return { ok: true };
    },
  }),
};
