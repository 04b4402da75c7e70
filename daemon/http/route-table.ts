// The registrar: every route of the shared table (shared/api-routes.ts) gets its handler from the
// route modules (routes/*.ts export handler definitions keyed by route id). For each request it
// checks the key's access as the table says (a read key on a write route: 403; a key over some
// projects on an all-projects route: 403), then parses the body with the route's schema, then
// calls the handler with the typed value. A route without a handler, or a handler for no route,
// stops the daemon from starting.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { API_ROUTES, type RouteId, type RouteParams, type RouteSpec } from '../../shared/api-routes.js';
import type { Access } from '../core/access.js';
import { accessOf } from './auth.js';
import type { AppServices } from './route-module.js';
import { parse } from './validate.js';

interface RouteRequest<Id extends RouteId, Body> {
  ctx: Context;
  /** The request's key (not for `open` and `session` routes, which have none). */
  readonly access: Access;
  params: RouteParams<Id>;
  body: Body;
}

type BodyOf<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteHandler<Id extends RouteId, S extends z.ZodType | undefined = undefined> {
  /** The request body's schema, parsed after the access check. */
  body?: S;
  /** Reads its own raw body: registered on the open router, before the JSON body parser. */
  rawBody?: true;
  /** What it returns (when not undefined) is the answer's JSON body. */
  handler(req: RouteRequest<Id, BodyOf<S>>, app: AppServices): unknown;
}

// the schema type differs per route: the registrar only needs the shape
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyHandler = RouteHandler<any, any>;
export type RouteHandlers = { readonly [Id in RouteId]?: AnyHandler };

/** One handler definition, keyed by its route id: `...route('services.patch', { body, handler })`. */
export function route<Id extends RouteId, S extends z.ZodType | undefined = undefined>(id: Id, def: RouteHandler<Id, S>): { [K in Id]: AnyHandler } {
  return { [id]: def } as { [K in Id]: AnyHandler };
}

/** The handler definitions of every module as one map; an id defined twice is a start-up error. */
export function mergeHandlers(...modules: RouteHandlers[]): RouteHandlers {
  const all: Record<string, AnyHandler> = {};
  for (const m of modules) {
    for (const [id, def] of Object.entries(m)) {
      if (id in all) throw new Error(`route ${id} has two handlers`);
      all[id] = def as AnyHandler;
    }
  }
  return all;
}

/** What is wrong between the table and the handlers: routes without a handler, handlers for no route. */
export function tableMismatches(handlers: RouteHandlers): string[] {
  const ids = new Set<string>(API_ROUTES.map((r) => r.id));
  const problems: string[] = [];
  for (const r of API_ROUTES) if (!(r.id in handlers)) problems.push(`route ${r.id} (${r.method} ${r.path}) has no handler`);
  for (const id of Object.keys(handlers)) if (!ids.has(id)) problems.push(`handler ${id} is for no route of the table`);
  return problems;
}

/** The key check the table names for a route, before anything is parsed. */
function checkAccess(r: RouteSpec, access: Access): void {
  // project-admin: the write level here; visibility, then all projects, in core (404 before 403)
  if (r.access === 'write' || r.access === 'all-projects-write' || r.access === 'project-admin') access.requireWrite();
  if (r.access === 'all-projects-read' || r.access === 'all-projects-write') access.requireAllProjects(r.action ?? 'this');
}

type Verb = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Registers every route of the table, in the table's order, on `api` (behind the key check) or,
 * for a handler reading its raw body, on `open`. Each layer is named by its route id.
 */
export function registerRoutes(routers: { api: Router; open: Router }, handlers: RouteHandlers, app: AppServices): void {
  const problems = tableMismatches(handlers);
  if (problems.length > 0) throw new Error(`the route table and its handlers differ: ${problems.join('; ')}`);
  for (const r of API_ROUTES) {
    const def = handlers[r.id]!;
    const router = def.rawBody ? routers.open : routers.api;
    const keyed = r.access !== 'open' && r.access !== 'session';
    router[r.method.toLowerCase() as Verb](r.id, r.path, async (ctx: Context) => {
      if (keyed) checkAccess(r, accessOf(ctx));
      const body = def.body === undefined ? undefined : parse(def.body, ctx.request.body);
      const req: RouteRequest<RouteId, unknown> = {
        ctx,
        get access() {
          return accessOf(ctx);
        },
        params: ctx.params as RouteParams<RouteId>,
        body,
      };
      const answer = await def.handler(req, app);
      if (answer !== undefined) ctx.body = answer;
    });
  }
}
