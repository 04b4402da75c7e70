// The auth matrix's vocabulary (test/api/auth-matrix.test.ts): the worlds a case acts on, how a
// case calls a route, and the routes the matrix leaves to other suites.
import type { QueryValues, RouteId } from '../../shared/api-routes.js';
import { uniq, type ProjectWorld } from './fixtures.js';

export type Level = 'read' | 'write' | 'admin';

export interface World {
  inside: ProjectWorld;
  outside: ProjectWorld;
  keyId: string;
  /** A finished (failed) deployment of each side's web service. */
  deployments: Map<ProjectWorld, string>;
}

/** How to call one route of the table: `target` is the world acted on. */
export interface Case {
  /** Told apart from the route's other cases. */
  label?: string;
  params(target: ProjectWorld, w: World): Record<string, string>;
  query?: QueryValues;
  body?(target: ProjectWorld, w: World): unknown;
  /** Statuses that mean "allowed" when 200 is not the only one (abort of a finished deployment is 409). */
  allowed?: number[];
  /** The world needs a finished deployment on each side. */
  deployed?: boolean;
}

/** Routes of the table this matrix leaves to other tests, and why. */
export const ELSEWHERE = {
  health: 'no key at all',
  'hooks.deliver': 'no key: signed deliveries (below)',
  'session.open': 'signing in: test/api/session',
  'session.close': 'signing out: test/api/session',
  'session.get': 'who the key is, any key: test/api/session',
  events: 'every key, scoped per event: test/api/events',
  'projects.list': 'every key, scoped per project (below)',
  'services.transfer': 'needs both projects visible (below)',
  'system.metrics': 'every key, scoped per project: test/api/shapes',
  'system.disk': 'every key: test/security/disk-threshold',
  'templates.list': 'every key, no project: test/api/compose-templates',
  'nodes.join-script': 'no key: the join token is the credential (test/swarm/control)',
  'nodes.join-ca': 'no key: the join token is the credential (test/swarm/control)',
  'nodes.join-complete': 'no key: the join token is the credential (test/swarm/control)',
} as const satisfies Partial<Record<RouteId, string>>;

const web = (t: ProjectWorld) => ({ serviceId: t.web.id });
/** An unknown check of the world's web service: allowed means past auth and scope, which answers 404. */
const unknownCheck = (t: ProjectWorld) => ({ serviceId: t.web.id, checkId: uniq('c') });

/** The uptime checks' routes (a check with only a port target is refused 400 when the service has none). */
export const CHECK_CASES = {
  'checks.list': { params: web },
  'checks.create': { params: web, body: () => ({ target: { kind: 'port' } }), allowed: [201, 400] },
  'checks.get': { params: unknownCheck, allowed: [404] },
  'checks.patch': { params: unknownCheck, body: () => ({ enabled: false }), allowed: [404] },
  'checks.delete': { params: unknownCheck, allowed: [404] },
  'checks.run': { params: unknownCheck, allowed: [404] },
  'checks.results': { params: unknownCheck, allowed: [404] },
  'checks.uptime': { params: unknownCheck, allowed: [404] },
  'checks.incidents': { params: unknownCheck, allowed: [404] },
} satisfies Partial<Record<RouteId, Case>>;
