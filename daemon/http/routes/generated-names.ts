// The record of generated hostnames (core/generated-names.ts), for keys over all projects:
// `GET /api/generated-names` lists every label handed out, with the project it is kept for;
// `DELETE /api/generated-names/:label` releases one (a label or its full hostname) so that another
// project's service may get it.
import { route } from '../route-table.js';

export const generatedNameRoutes = {
  ...route('generated-names.list', {
    handler: async ({ access }, { core }) => ({ names: await core.generatedNames.list(access) }),
  }),
  ...route('generated-names.release', {
    handler: async ({ access, params }, { core }) => {
      await core.generatedNames.release(access, params.label);
      return { ok: true };
    },
  }),
};
