// Every request except the open paths (health) carries `Authorization: Bearer <key>`.
import type { Context, Next } from 'koa';
import { Access } from '../core/access.js';
import type { KeyService } from '../core/keys.js';

export function authenticate(keys: KeyService, openPaths: readonly string[]) {
  return async (ctx: Context, next: Next) => {
    if (ctx.method === 'GET' && openPaths.includes(ctx.path)) return next();
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const key = await keys.authenticate(match?.[1]);
    ctx.state.access = new Access(key);
    return next();
  };
}

export function accessOf(ctx: Context): Access {
  return ctx.state.access as Access;
}
