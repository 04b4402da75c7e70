// The query string as single values: a key given twice arrives as an array, refused rather than
// one of its values picked.
import type { Context } from 'koa';
import { InvalidInput } from '../core/errors.js';

export function singleQuery(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.query)) {
    if (Array.isArray(v)) throw new InvalidInput(`${k} is given more than once`);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
