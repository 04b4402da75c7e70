// Projects: list, create, read (by id or slug), rename, delete, and the database variables its
// services may reference, and its volumes.
import { route } from '../route-table.js';
import { projectCreate, projectPatch } from '../validate.js';

export const projectRoutes = {
  ...route('projects.list', {
    handler: ({ ctx, access }, { core, cache }) => cache.respond(ctx, async () => ({ projects: await core.projects.list(access) })),
  }),
  ...route('projects.create', {
    body: projectCreate,
    handler: async ({ access, body }, { core }) => ({ project: await core.projects.create(access, body) }),
  }),
  // Scripts in the field call this with a project id as well as a slug: both are accepted.
  ...route('projects.get', {
    handler: ({ ctx, access, params }, { core, cache }) => cache.respond(ctx, async () => ({ project: await core.projects.get(access, params.projectSlug) })),
  }),
  ...route('projects.patch', {
    body: projectPatch,
    handler: async ({ access, params, body }, { core }) => ({ project: await core.projects.patch(access, params.projectId, body) }),
  }),
  ...route('projects.delete', {
    handler: async ({ access, params }, { core }) => ({ ok: true, proxy: await core.projects.delete(access, params.projectId) }),
  }),
  // not cached: sizes change without a write to the store
  ...route('volumes.list', {
    handler: async ({ access, params }, { core }) => ({ volumes: await core.volumes.list(access, params.projectId) }),
  }),
  ...route('projects.database-variable-suggestions', {
    handler: ({ ctx, access, params }, { core, cache }) => cache.respond(ctx, async () => ({ suggestions: await core.projects.databaseVariableSuggestions(access, params.projectId) })),
  }),
};
