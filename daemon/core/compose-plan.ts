// A parsed compose document -> the import plan (shared/types/compose.ts): what each service
// becomes, every key of the file mapped or listed unsupported with why, and the order services are
// created and first deployed in (databases first, then depends_on). Pure: the document comes in
// as plain objects (daemon/compose-import/ parses the YAML), nothing is stored.
import type { ComposeDependencyCondition, ComposePlan, ComposeUnsupported } from '../../shared/types.js';
import { officialDatabaseDefaults, rewriteReferences } from './compose-references.js';
import type { ComposeContext, ServiceDraft } from './compose-draft.js';
import { berthName, planService } from './compose-service.js';
import { isMap, type Plain } from './compose-values.js';
import { InvalidInput } from './errors.js';

export interface PlanOptions extends ComposeContext {
  /** Service names the project already has (a compose name that is taken gets another). */
  existingNames: ReadonlySet<string>;
  /** Variables the file uses that the .env text does not set. */
  unsetVariables?: readonly string[];
}

const SERVICE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,99}$/;
const MAX_SERVICES = 100;

const TOP_LEVEL: Record<string, string> = {
  networks: "Berth gives each project one private network that all its services join; the file's networks are not created",
  configs: 'Compose configs are not supported; bind-mount the file in the service and supply its content (files) to get a config file',
  secrets: 'Compose secrets are not supported; use a variable, or bind-mount the file and supply its content (files)',
  include: 'include reads other files: merge them into this file first',
  models: 'model runners are not supported',
};

function topLevelVolumes(value: unknown, unsupported: ComposeUnsupported[]): boolean {
  if (value === null) return true;
  if (!isMap(value)) {
    unsupported.push({ service: null, key: 'volumes', why: 'volumes must be a mapping of volume names' });
    return false;
  }
  for (const [name, spec] of Object.entries(value)) {
    if (spec === null || !isMap(spec)) continue;
    for (const key of Object.keys(spec)) {
      if (key === 'name') continue;
      const why =
        key === 'external'
          ? 'an external volume exists outside the project; Berth creates and owns the volumes of its services'
          : key === 'driver' || key === 'driver_opts'
            ? "Berth's volumes use Docker's local driver; other drivers and their options are not supported"
            : 'volume labels and other options are not applied';
      unsupported.push({ service: null, key: `volumes.${name}.${key}`, why });
    }
  }
  return true;
}

function dependencies(drafts: ServiceDraft[]): void {
  const byService = new Map(drafts.map((d) => [d.service, d]));
  const strength: Record<ComposeDependencyCondition, number> = { service_started: 0, service_completed_successfully: 1, service_healthy: 2 };
  for (const d of drafts) {
    if (d.becomes === 'skipped') continue;
    const chosen = new Map<string, ComposeDependencyCondition>();
    for (const dep of d.dependsOn) {
      const target = byService.get(dep.service);
      if (!target) throw new InvalidInput(`services.${d.service}.depends_on: there is no service named ${dep.service.slice(0, 100)}`, 'invalid_compose');
      if (target === d) throw new InvalidInput(`services.${d.service}.depends_on: a service cannot depend on itself (cycle ${d.service} -> ${d.service})`, 'dependency_cycle');
      if (target.becomes === 'skipped') {
        d.warnings.push(`${d.service}: depends on ${dep.service}, which is skipped; it is not waited for`);
        continue;
      }
      let condition = dep.condition;
      if (condition === 'service_healthy' && !target.berth.healthcheck && !target.engine) {
        d.warnings.push(`${d.service}: ${dep.service} has no health check, so it is waited for until its deployment is live`);
        condition = 'service_started';
      }
      const before = chosen.get(target.berth.name);
      if (before === undefined || strength[condition] > strength[before]) chosen.set(target.berth.name, condition);
    }
    d.berth.dependsOn = [...chosen].map(([service, condition]) => ({ service, condition }));
  }
}

/** Creation order: a service after everything it depends on; among the ready ones databases first, then the file's order. */
function creationOrder(drafts: ServiceDraft[]): string[] {
  const live = drafts.filter((d) => d.becomes !== 'skipped');
  const byName = new Map(live.map((d) => [d.berth.name, d]));
  const placed = new Set<string>();
  const order: string[] = [];
  while (order.length < live.length) {
    const ready = live.filter((d) => !placed.has(d.berth.name) && d.berth.dependsOn.every((dep) => placed.has(dep.service)));
    if (ready.length === 0)
      throw new InvalidInput(
        `depends_on has a cycle: ${cycleOf(
          live.filter((d) => !placed.has(d.berth.name)),
          byName,
        )}`,
        'dependency_cycle',
      );
    const next = ready.find((d) => d.engine) ?? ready[0]!;
    placed.add(next.berth.name);
    order.push(next.service);
  }
  return order;
}

function cycleOf(left: ServiceDraft[], byName: Map<string, ServiceDraft>): string {
  const path: ServiceDraft[] = [];
  let at = left[0]!;
  while (!path.includes(at)) {
    path.push(at);
    const next = at.berth.dependsOn.map((dep) => byName.get(dep.service)!).find((d) => left.includes(d));
    if (!next) break;
    at = next;
  }
  const cycle = path.slice(path.indexOf(at));
  return [...cycle, at].map((d) => d.service).join(' -> ');
}

export function planCompose(document: Plain, options: PlanOptions): ComposePlan {
  const unsupported: ComposeUnsupported[] = [];
  const warnings: string[] = [];
  const mapped: string[] = [];
  for (const name of options.unsetVariables ?? []) warnings.push(`the variable ${name} is not set in the .env text: it became an empty string`);
  for (const [key, value] of Object.entries(document)) {
    if (key === 'services') mapped.push(key);
    else if (key === 'version') {
      mapped.push(key);
      warnings.push('version is obsolete in the Compose Specification and ignored');
    } else if (key === 'name') mapped.push(key);
    else if (key === 'volumes') {
      if (topLevelVolumes(value, unsupported)) mapped.push(key);
    } else if (key.startsWith('x-')) unsupported.push({ service: null, key, why: 'extension, ignored' });
    else unsupported.push({ service: null, key, why: Object.hasOwn(TOP_LEVEL, key) ? TOP_LEVEL[key]! : 'not a key of the Compose Specification' });
  }

  const services = document.services;
  if (!isMap(services)) throw new InvalidInput('services must be a mapping of service names to services', 'invalid_compose');
  const entries = Object.entries(services);
  if (entries.length === 0) throw new InvalidInput('services has no service', 'invalid_compose');
  if (entries.length > MAX_SERVICES) throw new InvalidInput(`services has more than ${MAX_SERVICES} services`, 'invalid_compose');
  const taken = new Set(options.existingNames);
  const drafts: ServiceDraft[] = [];
  for (const [name, raw] of entries) {
    if (!SERVICE_NAME.test(name)) throw new InvalidInput(`services.${name.slice(0, 100)}: a service name is letters, digits, ., _ and - (at most 100)`, 'invalid_compose');
    if (raw !== null && !isMap(raw)) throw new InvalidInput(`services.${name}: a service must be a mapping`, 'invalid_compose');
    drafts.push(planService(name, raw ?? {}, berthName(name, taken, warnings), options));
  }
  for (const d of drafts) officialDatabaseDefaults(d);
  rewriteReferences(drafts);
  dependencies(drafts);
  const order = creationOrder(drafts);
  for (const d of drafts) {
    unsupported.push(...d.unsupported);
    warnings.push(...d.warnings);
    if (d.engine === 'redis') warnings.push(`${d.service}: a managed Redis requires its password (\${${d.berth.name}.REDIS_PASSWORD}); redis:// URLs naming it were given its REDIS_URL`);
  }
  return {
    services: drafts.map((d) => ({ service: d.service, becomes: d.becomes, ...(d.becomes === 'skipped' ? {} : { berthService: d.berth }), mapped: d.mapped })),
    mapped,
    unsupported,
    warnings,
    order,
  };
}
