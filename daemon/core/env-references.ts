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

/**
 * Caps on one resolution, so a hostile set of variables (`V2 = ${a.V1}` x 9000 where `V1 =
 * ${a.V0}` x 9000) is refused at once instead of expanding for minutes. A process's environment
 * string cannot exceed 128 KiB on Linux (MAX_ARG_STRLEN), so no useful value is longer.
 */
export const MAX_EXPANDED_CHARS = 131_072;
export const MAX_REFERENCES = 10_000;

/** The work one top-level `resolve` may do, references followed (memoised ones too) counted. */
interface Budget {
  references: number;
}

type Mode = 'strict' | 'lenient';

/** Resolves references over one snapshot of a project's services and variables. */
export class EnvResolver {
  private byRef = new Map<string, ReferenceTarget>();
  private raw = new Map<string, Map<string, string>>();
  /**
   * Each variable is expanded once per resolver (the snapshot does not change), so resolution is
   * linear in the input: a value referring to the same variable 9000 times expands it once.
   * Failures are remembered too, or a lenient display would retry them at every reference.
   */
  private memo: Record<Mode, Map<string, string | ReferenceError>> = { strict: new Map(), lenient: new Map() };

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
    copy.memo = { strict: new Map(), lenient: new Map() };
    return copy;
  }

  /** Strict: throws ReferenceError on an unknown service or variable, a cycle, or a cap passed. */
  resolve(value: string): string {
    return this.expand(value, new Set(), 'strict', { references: 0 });
  }

  /** Lenient: unresolvable references stay as written (used for display); so does a value over a cap. */
  resolveLenient(value: string): string {
    try {
      return this.expand(value, new Set(), 'lenient', { references: 0 });
    } catch {
      return value;
    }
  }

  /** Every variable another service can reference on `target`: its own and its computed ones. */
  variablesOf(target: ReferenceTarget): Map<string, string> {
    const out = new Map<string, string>();
    for (const [key, raw] of this.raw.get(target.id) ?? []) {
      try {
        out.set(key, this.lookup(target, key, new Set(), 'lenient', { references: 0 }));
      } catch {
        out.set(key, raw);
      }
    }
    let computed: Map<string, string>;
    try {
      computed = this.computed(target, new Set(), 'lenient', { references: 0 });
    } catch {
      computed = new Map();
    }
    for (const [key, value] of computed) if (!out.has(key)) out.set(key, value);
    return out;
  }

  private expand(value: string, stack: Set<string>, mode: Mode, budget: Budget): string {
    const parts: string[] = [];
    let length = 0;
    let at = 0;
    const add = (text: string) => {
      length += text.length;
      if (length > MAX_EXPANDED_CHARS) throw new CapPassed(`a value would expand to more than ${MAX_EXPANDED_CHARS} characters (the cap on an expanded value)`, false);
      parts.push(text);
    };
    for (const m of value.matchAll(REFERENCE)) {
      const [whole, serviceRef, variable] = m as unknown as [string, string, string];
      add(value.slice(at, m.index));
      at = m.index! + whole.length;
      if (++budget.references > MAX_REFERENCES) {
        throw new CapPassed(`resolving a value follows more than ${MAX_REFERENCES} references (the cap on references per value)`, true);
      }
      const target = this.byRef.get(serviceRef);
      if (!target) {
        if (mode === 'strict') throw new ReferenceError(`\${${serviceRef}.${variable}}: no service named "${serviceRef}" in this project`);
        add(whole);
        continue;
      }
      try {
        add(this.lookup(target, variable, stack, mode, budget));
      } catch (err) {
        // caps hold in every mode: a display must not do the work a resolution may not
        if (mode === 'strict' || isCapError(err)) throw err;
        add(whole);
      }
    }
    if (at === 0) return value;
    add(value.slice(at));
    return parts.join('');
  }

  private lookup(target: ReferenceTarget, variable: string, stack: Set<string>, mode: Mode, budget: Budget): string {
    const node = `${target.id}\0${variable}`;
    const known = this.memo[mode].get(node);
    if (known instanceof ReferenceError) throw known;
    if (known !== undefined) return known;
    if (stack.has(node)) {
      throw new ReferenceError(`\${${target.name}.${variable}} refers back to itself through a cycle of references`);
    }
    const next = new Set(stack).add(node);
    let result: string;
    try {
      const own = this.raw.get(target.id)?.get(variable);
      if (own !== undefined) result = this.expand(own, next, mode, budget);
      else {
        const computed = this.computed(target, next, mode, budget).get(variable);
        if (computed === undefined) throw new ReferenceError(`\${${target.name}.${variable}}: service "${target.name}" has no variable ${variable}`);
        result = computed;
      }
    } catch (err) {
      if (err instanceof ReferenceError && !(err instanceof CapPassed && err.perResolution)) this.memo[mode].set(node, err);
      throw err;
    }
    this.memo[mode].set(node, result);
    return result;
  }

  /** Variables every service offers, plus connection URLs for database services. */
  private computed(target: ReferenceTarget, stack: Set<string>, mode: Mode, budget: Budget): Map<string, string> {
    const out = new Map<string, string>([['PRIVATE_HOST', target.slug]]);
    if (target.internalPort !== null) out.set('PRIVATE_PORT', String(target.internalPort));
    if (target.databaseEngine && target.internalPort !== null) {
      const resolved = new Map<string, string>();
      for (const [key] of this.raw.get(target.id) ?? []) resolved.set(key, this.lookup(target, key, stack, mode, budget));
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

/** A cap passed; the reference count depends on the resolution it happened in, so it is not remembered. */
class CapPassed extends ReferenceError {
  constructor(
    message: string,
    readonly perResolution: boolean,
  ) {
    super(message);
  }
}

function isCapError(err: unknown): boolean {
  return err instanceof CapPassed;
}
