// Services: create (in a project), overview, change, move to another project, delete, and the
// variable names its environment may reference.
import { InvalidInput } from '../../core/errors.js';
import { singleQuery } from '../query.js';
import { route } from '../route-table.js';
import { serviceCreate, servicePatch, transfer } from '../validate.js';

export const serviceRoutes = {
  ...route('services.create', {
    body: serviceCreate,
    handler: async ({ access, params, body: { env, ...input } }, { core }) => ({ service: await core.services.create(access, params.projectId, input, env ?? []) }),
  }),
  ...route('services.overview', {
    handler: ({ ctx, access, params }, { core, cache }) => cache.respond(ctx, () => core.services.overview(access, params.serviceId)),
  }),
  ...route('services.patch', {
    body: servicePatch,
    handler: async ({ access, params, body }, { core }) => ({ service: await core.services.patch(access, params.serviceId, body) }),
  }),
  ...route('services.transfer', {
    body: transfer,
    handler: ({ access, params, body }, { core }) => core.services.transfer(access, params.serviceId, body.targetProjectId),
  }),
  ...route('services.delete', {
    handler: async ({ ctx, access, params }, { core }) => {
      const { keepVolumes = 'false' } = singleQuery(ctx);
      if (keepVolumes !== 'true' && keepVolumes !== 'false') throw new InvalidInput('keepVolumes must be true or false');
      return { ok: true, proxy: await core.services.delete(access, params.serviceId, keepVolumes === 'true') };
    },
  }),
  // not from the response cache: the Engine's tasks change without a store write
  ...route('services.instances', {
    handler: ({ access, params }, { core }) => core.instances.list(access, params.serviceId),
  }),
  ...route('services.suggestion-keys', {
    handler: ({ ctx, access, params }, { core, cache }) => cache.respond(ctx, () => core.services.suggestionKeys(access, params.serviceId)),
  }),
};
