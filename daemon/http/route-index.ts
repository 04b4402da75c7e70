// Routing without testing every route's regular expression on every request. @koa/router matches a
// request by running the regexp of each of its ~70 layers in turn (most of its per-request cost,
// several microseconds, as much as the rest of a cached answer). Each layer whose path is plain
// (literal segments and `:name` parameters) gets the literal text before its first parameter and
// after its last one; a request path that does not start and end with them cannot match it, so
// only the layers that can are handed to the router's own matching, which decides exactly as
// before. Layers with anything else in their path (wildcards, optional parts, regexps) are always
// handed over.
import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';

interface Layer {
  path: string | RegExp;
  opts: { end?: boolean; sensitive?: boolean };
}

interface Gate {
  layer: Layer;
  /** Lower-cased literal text every matching path starts with; null: always a candidate. */
  prefix: string | null;
  /** Lower-cased literal text every matching path ends with (before one optional slash). */
  suffix: string;
}

const PLAIN = /^(?:\/(?:[A-Za-z0-9._~-]+|:[A-Za-z_$][A-Za-z0-9_$]*))+\/?$|^\/$/;

function gateOf(layer: Layer): Gate {
  const path = layer.path;
  if (typeof path !== 'string' || !PLAIN.test(path)) return { layer, prefix: null, suffix: '' };
  const first = path.indexOf(':');
  if (first === -1) {
    const literal = path.toLowerCase().replace(/\/$/, '');
    return { layer, prefix: literal, suffix: layer.opts.end === false ? '' : literal };
  }
  const lastParam = /:[A-Za-z_$][A-Za-z0-9_$]*(?!.*:)/.exec(path)!;
  const suffix = path
    .slice(lastParam.index + lastParam[0].length)
    .toLowerCase()
    .replace(/\/$/, '');
  return { layer, prefix: path.slice(0, first).toLowerCase(), suffix: layer.opts.end === false ? '' : suffix };
}

function canMatch(gate: Gate, lower: string): boolean {
  if (gate.prefix === null) return true;
  if (!lower.startsWith(gate.prefix)) return false;
  if (gate.suffix === '') return true;
  return lower.endsWith(gate.suffix) || lower.endsWith(`${gate.suffix}/`);
}

/**
 * Makes `router.match` look only at the layers a path can match. Call it once every route is
 * registered (routes added later are still matched, the slow way).
 */
export function indexRoutes(router: Router): void {
  const r = router as unknown as { stack: Layer[]; match: (path: string, method: string) => unknown };
  const all = r.stack;
  const gates = all.map(gateOf);
  const match = r.match;
  r.match = function indexedMatch(this: typeof r, path: string, method: string) {
    if (this.stack !== all || all.length !== gates.length) return match.call(this, path, method);
    const lower = path.toLowerCase();
    const candidates: Layer[] = [];
    for (const gate of gates) if (canMatch(gate, lower)) candidates.push(gate.layer);
    this.stack = candidates;
    try {
      return match.call(this, path, method);
    } finally {
      this.stack = all;
    }
  };
}

/**
 * The router's middleware, skipped (straight to `next`) for a request no route of it can match by
 * path: for a router of a few routes under one prefix (the open webhook router), most requests
 * then never enter it. Call it once every route is registered.
 */
export function routesIfMatchable(router: Router): Middleware {
  const gates = (router as unknown as { stack: Layer[] }).stack.map(gateOf);
  const routes = router.routes() as unknown as Middleware;
  const gated = (ctx: Context, next: Next) => {
    const lower = ctx.path.toLowerCase();
    return gates.some((gate) => canMatch(gate, lower)) ? routes(ctx, next) : next();
  };
  // like the router's own middleware, it names its router (the route-table test reads its stack)
  return Object.assign(gated, { router });
}
