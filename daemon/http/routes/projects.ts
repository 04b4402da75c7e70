import type Router from '@koa/router';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse, projectCreate, projectPatch } from '../validate.js';

export function projectRoutes(router: Router, { core, cache }: AppServices): void {
  router.get('/api/projects', async (ctx) => {
    await cache.respond(ctx, async () => ({ projects: await core.projects.list(accessOf(ctx)) }));
  });
  router.post('/api/projects', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('creating a project');
    const input = parse(projectCreate, ctx.request.body);
    ctx.body = { project: await core.projects.create(access, input) };
  });
  // Scripts in the field call this with a project id as well as a slug: both are accepted.
  router.get('/api/projects/:projectSlug', async (ctx) => {
    await cache.respond(ctx, async () => ({ project: await core.projects.get(accessOf(ctx), ctx.params.projectSlug!) }));
  });
  router.patch('/api/projects/:projectId', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const input = parse(projectPatch, ctx.request.body);
    ctx.body = { project: await core.projects.patch(access, ctx.params.projectId!, input) };
  });
  router.delete('/api/projects/:projectId', async (ctx) => {
    const proxy = await core.projects.delete(accessOf(ctx), ctx.params.projectId!);
    ctx.body = { ok: true, proxy };
  });
  router.get('/api/projects/:projectId/database-variable-suggestions', async (ctx) => {
    await cache.respond(ctx, async () => ({ suggestions: await core.projects.databaseVariableSuggestions(accessOf(ctx), ctx.params.projectId!) }));
  });
}
