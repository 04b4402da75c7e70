import type Router from '@koa/router';
import type { Context } from 'koa';
import { keyView } from '../../core/views.js';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { keyCreate, parse } from '../validate.js';

/** Key management needs a write key over all projects. */
export function keyRoutes(router: Router, { core }: AppServices): void {
  const admin = (ctx: Context) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('managing keys');
  };
  router.get('/api/keys', async (ctx) => {
    admin(ctx);
    ctx.body = { keys: (await core.keys.list()).map(keyView) };
  });
  router.post('/api/keys', async (ctx) => {
    admin(ctx);
    const input = parse(keyCreate, ctx.request.body);
    const { key, token } = await core.keys.create(input);
    ctx.body = { key: keyView(key), token };
  });
  router.delete('/api/keys/:keyId', async (ctx) => {
    admin(ctx);
    await core.keys.revoke(ctx.params.keyId!);
    ctx.body = { ok: true };
  });
}
