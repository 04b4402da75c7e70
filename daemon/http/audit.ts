// The audit trail: the outermost middleware, around the error funnel, so it sees every answer as it
// leaves (a 401 from the key check, a 413 from the body parser, a handler's 404 all the same). For
// each call of a route the audit log records (every route of the table whose method is not GET, and
// the terminal's WebSocket upgrade) it hands core one entry once the answer is known: who (the key
// or session, a git host's delivery), from where, which route and path, what project and service the
// path named (read before the call runs: a deleted service still names its project), the status and
// error code, how long it took. Never a body, a query string, a header or a token: an exec's
// command is the one detail taken, from what the route parsed. Recording queues the entry; the
// write happens a moment later in core and cannot fail or slow the answer.
import type { Context, Next } from 'koa';
import { matchRoute } from '../../shared/api-routes.js';
import { isAudited } from '../../shared/audit-actions.js';
import type { AuditActor, AuditOutcome } from '../../shared/types.js';
import type { AuditLog, AuditTarget } from '../core/audit.js';
import type { KeyRecord } from '../core/records.js';
import type { Access } from '../core/access.js';
import { clientAddress } from './request-origin.js';
import { pendingUpgrade } from './terminal-ws.js';

/** What a handler adds to its call's entry, when the answer alone does not say it. */
export interface AuditNote {
  /** The key the call acted as, when the request carried none (a sign-in, a sign-out). */
  key?: KeyRecord;
  /** Replaces the answer's status (a terminal that opened: 101; one refused after the upgrade). */
  status?: number;
  errorCode?: string;
  /** An exec's command (never its input). */
  detail?: string;
}

const NOTE = Symbol('berth.audit-note');

/** Adds to the entry of the call `ctx` is (merged with what was noted before). */
export function noteAudit(ctx: Context, note: AuditNote): void {
  const state = ctx.state as { [NOTE]?: AuditNote };
  state[NOTE] = { ...state[NOTE], ...note };
}

/** Created resources: the id the answer names, when the path could not (the project or service is new). */
const CREATED: Record<string, (body: Record<string, { id?: unknown } | undefined>) => Partial<AuditTarget>> = {
  'projects.create': (b) => (typeof b.project?.id === 'string' ? { projectId: b.project.id } : {}),
  'services.create': (b) => (typeof b.service?.id === 'string' ? { serviceId: b.service.id } : {}),
};

const SESSION_COOKIE = /(^|;\s*)(__Host-)?berth_session=/;

function actorOf(ctx: Context, routeId: string, note: AuditNote | undefined): AuditActor {
  if (routeId === 'hooks.deliver') return { kind: 'webhook', keyId: null, keyName: null };
  const access = ctx.state.access as Access | undefined;
  const key = note?.key ?? access?.key ?? null;
  const bySession = routeId.startsWith('session.') || typeof ctx.state.sessionHash === 'string' || (!ctx.get('authorization') && SESSION_COOKIE.test(ctx.get('cookie')));
  return { kind: bySession ? 'session' : 'key', keyId: key?.id ?? null, keyName: key?.name ?? null };
}

function errorCodeOf(body: unknown): string | null {
  const code = (body as { error?: { code?: unknown } } | null | undefined)?.error?.code;
  return typeof code === 'string' ? code.slice(0, 100) : null;
}

/** The path parameters of a route's template for a concrete path (matchRoute already matched them). */
function paramsOf(template: string, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = template.split('/');
  const values = path.split('/');
  parts.forEach((p, i) => {
    if (!p.startsWith(':')) return;
    try {
      out[p.slice(1)] = decodeURIComponent(values[i] ?? '');
    } catch {
      out[p.slice(1)] = values[i] ?? '';
    }
  });
  return out;
}

export function auditTrail(audit: Pick<AuditLog, 'record' | 'target'>, log: (message: string, err?: unknown) => void) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method === 'GET' ? pendingUpgrade(ctx.req) === undefined : ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return next();
    const route = matchRoute(ctx.method, ctx.path);
    if (route === null || !isAudited(route.id)) return next();
    const started = performance.now();
    const params = paramsOf(route.path, ctx.path);
    const target = audit.target(params);
    let thrown = false;
    try {
      await next();
    } catch (err) {
      thrown = true; // the funnel answers everything; this is its own failure, answered 500 by Koa
      throw err;
    } finally {
      try {
        const note = (ctx.state as { [NOTE]?: AuditNote })[NOTE];
        // a WebSocket taken over (ctx.respond false) has no HTTP answer: the handler noted how it went
        const status = note?.status ?? (thrown ? 500 : ctx.status);
        const outcome: AuditOutcome = status < 400 ? 'ok' : 'error';
        const created = status < 400 ? CREATED[route.id]?.((ctx.body ?? {}) as Record<string, { id?: unknown }>) : undefined;
        audit.record(
          {
            actor: actorOf(ctx, route.id, note),
            clientAddress: clientAddress(ctx),
            method: route.id === 'terminal' ? 'GET' : route.method,
            route: route.id,
            path: ctx.path.slice(0, 2048),
            detail: note?.detail ?? (route.id === 'terminal' ? 'terminal' : null),
            status,
            outcome,
            errorCode: outcome === 'ok' ? null : (note?.errorCode ?? errorCodeOf(ctx.body) ?? (thrown ? 'internal' : null)),
            durationMs: Math.round(performance.now() - started),
          },
          created && (created.projectId || created.serviceId) ? target.then((t) => ({ ...t, ...created })) : target,
        );
      } catch (err) {
        log(`audit log: ${ctx.method} ${ctx.path} could not be recorded`, err);
      }
    }
  };
}
