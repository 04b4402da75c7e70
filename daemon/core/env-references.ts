// `${<service_name>.<VARIABLE>}` references between services of one project: parsing, resolution,
// and the clear errors a user needs (unknown service, unknown variable, a cycle).
import type { DatabaseEngine } from '../../shared/types.js';
import { ENGINES } from './engines.js';
import { InvalidInput } from './errors.js';
import type { EnvRecord } from './records.js';

const REFERENCE = /\$\{([^{}.]+)\.([A-Z_][A-Z0-9_]*)\}/g;

/** What the resolver needs to know about each service of the project. */
export interface ReferenceTarget {
  id: string;
  name: string;
  slug: string;
  databaseEngine: DatabaseEngine | null;
  internalPort: number | null;
  /** For the public connection URLs of a database reachable from outside (see `computed`). */
  hostPort?: number | null;
  databasePublicEnabled?: boolean;
  databasePublicHostname?: string | null;
}

export class ReferenceError extends InvalidInput {
  constructor(message: string) {
    super(message, 'invalid_reference');
  }
}

/** `POSTGRES_URL` -> `POSTGRES_PUBLIC_URL`. */
export function publicName(key: string): string {
  return key.replace(/_URL$/, '_PUBLIC_URL');
}

export function referencesIn(value: string): { service: string; variable: string }[] {
  return [...value.matchAll(REFERENCE)].map((m) => ({ service: m[1]!, variable: m[2]! }));
}

/** Resolves references over one snapshot of a project's services and variables. */
export class EnvResolver {
  private byRef = new Map<string, ReferenceTarget>();
  private raw = new Map<string, Map<string, string>>();

  constructor(services: readonly ReferenceTarget[], env: readonly EnvRecord[]) {
    // A name wins over another service's slug, so `${db.X}` means the service named "db" if any.
    for (const s of services) this.byRef.set(s.slug, s);
    for (const s of services) this.byRef.set(s.name, s);
    for (const s of services) this.raw.set(s.id, new Map());
    for (const e of env) this.raw.get(e.serviceId)?.set(e.key, e.value);
  }

  /** Replace the service's variables (for validating a change before it is saved). */
  withVariable(serviceId: string, key: string, value: string): EnvResolver {
    const copy = Object.create(EnvResolver.prototype) as EnvResolver;
    copy.byRef = this.byRef;
    copy.raw = new Map(this.raw);
    copy.raw.set(serviceId, new Map(this.raw.get(serviceId)).set(key, value));
    return copy;
  }

  /** Strict: throws ReferenceError on an unknown service or variable, or on a cycle. */
  resolve(value: string): string {
    return this.expand(value, new Set(), true);
  }

  /** Lenient: unresolvable references stay as written (used for display). */
  resolveLenient(value: string): string {
    return this.expand(value, new Set(), false);
  }

  /** Every variable another service can reference on `target`: its own and its computed ones. */
  variablesOf(target: ReferenceTarget): Map<string, string> {
    const out = new Map<string, string>();
    for (const [key] of this.raw.get(target.id) ?? []) out.set(key, this.lookup(target, key, new Set(), false));
    for (const [key, value] of this.computed(target, new Set(), false)) if (!out.has(key)) out.set(key, value);
    return out;
  }

  private expand(value: string, stack: Set<string>, strict: boolean): string {
    return value.replace(REFERENCE, (whole, serviceRef: string, variable: string) => {
      const target = this.byRef.get(serviceRef);
      if (!target) {
        if (strict) throw new ReferenceError(`\${${serviceRef}.${variable}}: no service named "${serviceRef}" in this project`);
        return whole;
      }
      try {
        return this.lookup(target, variable, stack, strict);
      } catch (err) {
        if (strict) throw err;
        return whole;
      }
    });
  }

  private lookup(target: ReferenceTarget, variable: string, stack: Set<string>, strict: boolean): string {
    const node = `${target.id}\0${variable}`;
    if (stack.has(node)) {
      throw new ReferenceError(`\${${target.name}.${variable}} refers back to itself through a cycle of references`);
    }
    const next = new Set(stack).add(node);
    const own = this.raw.get(target.id)?.get(variable);
    if (own !== undefined) return this.expand(own, next, strict);
    const computed = this.computed(target, next, strict).get(variable);
    if (computed !== undefined) return computed;
    throw new ReferenceError(`\${${target.name}.${variable}}: service "${target.name}" has no variable ${variable}`);
  }

  /** Variables every service offers, plus connection URLs for database services. */
  private computed(target: ReferenceTarget, stack: Set<string>, strict: boolean): Map<string, string> {
    const out = new Map<string, string>([['PRIVATE_HOST', target.slug]]);
    if (target.internalPort !== null) out.set('PRIVATE_PORT', String(target.internalPort));
    if (target.databaseEngine && target.internalPort !== null) {
      const resolved = new Map<string, string>();
      for (const [key, raw] of this.raw.get(target.id) ?? []) resolved.set(key, this.expand(raw, stack, strict));
      const urls = ENGINES[target.databaseEngine].urls(resolved, target.slug, target.internalPort);
      for (const [key, value] of Object.entries(urls)) out.set(key, value);
      // A public database with a public hostname also offers <NAME>_PUBLIC_URL on its host port.
      if (target.databasePublicEnabled && target.databasePublicHostname && target.hostPort) {
        const publicUrls = ENGINES[target.databaseEngine].urls(resolved, target.databasePublicHostname, target.hostPort);
        for (const [key, value] of Object.entries(publicUrls)) out.set(publicName(key), value);
      }
    }
    return out;
  }
}
