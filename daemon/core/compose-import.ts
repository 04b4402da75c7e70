// Importing a compose file (or a template of the gallery) into a project: the plan (dry run), or
// the services created through the ordinary service-creation use case (every rule and event
// applies), all or nothing, then their first deployments started in dependency order in the
// background (core/compose-deploy.ts).
import { randomBytes } from 'node:crypto';
import type { ComposeImportInput, ComposeImportResult, ComposeTemplate, Service } from '../../shared/types.js';
import { visibleProject, type Access } from './access.js';
import { deployInOrder, type ComposeDeployDeps } from './compose-deploy.js';
import { planCompose } from './compose-plan.js';
import { referencesIn } from './env-references.js';
import type { EnvVars } from './env-vars.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import type { ComposeParser } from './ports/compose-parser.js';
import type { Store } from './ports/store.js';
import type { Quotas } from './quotas.js';
import type { Services } from './services.js';

export interface ComposeImportDeps extends Omit<ComposeDeployDeps, 'store'> {
  store: Store;
  services: Services;
  env: EnvVars;
  quotas: Quotas;
  parser: ComposeParser;
  templates: readonly ComposeTemplate[];
  /** Random bytes for generated template secrets (node:crypto's randomBytes in production). */
  random?: (size: number) => Buffer;
}

const MAX_FILES = 100;

export class ComposeImport {
  /** The background deployments started by imports (tests wait for them; each ends logged). */
  private running = new Set<Promise<void>>();

  constructor(private d: ComposeImportDeps) {}

  listTemplates(): { templates: ComposeTemplate[] } {
    return { templates: this.d.templates.map((t) => ({ ...t, variables: t.variables.map((v) => ({ ...v })) })) };
  }

  async import(access: Access, projectIdOrSlug: string, input: ComposeImportInput): Promise<ComposeImportResult> {
    access.requireWrite();
    const project = await visibleProject(this.d.store, access, projectIdOrSlug);
    const { compose, vars, templateFiles } = this.source(input);
    const parsed = this.d.parser.parse(compose, vars);
    const files = new Map<string, string>();
    const given = [...Object.entries(templateFiles), ...Object.entries(input.files ?? {})];
    if (given.length > MAX_FILES) throw new InvalidInput(`files: at most ${MAX_FILES} files`);
    for (const [path, content] of given) files.set(path, content);
    const plan = planCompose(parsed.document, {
      files,
      plainImages: new Set(input.plainImages ?? []),
      repository: input.repository ?? null,
      vars,
      parseEnv: (text, what) => this.d.parser.parseEnv(text, what),
      existingNames: await this.d.store.services.namesInProject(project.id),
      unsetVariables: parsed.unsetVariables,
    });
    for (const name of input.plainImages ?? []) {
      if (!plan.services.some((s) => s.service === name)) throw new InvalidInput(`plainImages: the file has no service named ${name.slice(0, 100)}`);
    }
    if (input.dryRun) return plan;

    const { maxServices } = await this.d.quotas.effective(project.id);
    const count = (await this.d.store.services.list([project.id])).length;
    if (count + plan.order.length > maxServices) {
      throw new Conflict(`the import creates ${plan.order.length} service(s) and the project has ${count}; its quota maxServices is ${maxServices}: nothing was created`, 'quota_exceeded');
    }
    const created = await this.createAll(access, project.id, plan);
    const task = deployInOrder({ ...this.d, store: this.d.store }, access, plan, created).catch((err: unknown) => this.d.log('compose import: the first deployments stopped', err));
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
    return { ...plan, created };
  }

  /** Resolves when every background deployment started so far has ended (tests). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private source(input: ComposeImportInput): { compose: string; vars: Map<string, string>; templateFiles: Record<string, string> } {
    if (input.template !== undefined) {
      if (input.compose !== undefined) throw new InvalidInput('give either compose or template, not both');
      if (input.env !== undefined) throw new InvalidInput('a template takes variables, not an env text');
      const template = this.d.templates.find((t) => t.id === input.template);
      if (!template) throw new NotFound(`no template named ${input.template.slice(0, 100)}`);
      return { compose: template.compose, vars: templateVariables(template, input.variables ?? {}, this.d.random ?? randomBytes), templateFiles: template.files ?? {} };
    }
    if (input.compose === undefined) throw new InvalidInput('give compose (the file text) or template');
    if (input.variables !== undefined) throw new InvalidInput('variables go with a template; give an env text with a compose file');
    return { compose: input.compose, vars: input.env ? this.d.parser.parseEnv(input.env, 'the .env text') : new Map(), templateFiles: {} };
  }

  /** Every service in order, then the variables that reference others; on any failure what was created is deleted. */
  private async createAll(access: Access, projectId: string, plan: ComposeImportResult): Promise<Service[]> {
    const created: Service[] = [];
    const later: { service: Service; key: string; value: string }[] = [];
    try {
      for (const name of plan.order) {
        const berth = plan.services.find((s) => s.service === name)!.berthService!;
        const plain = berth.env.filter((e) => referencesIn(e.value).length === 0);
        const service = await this.d.services.create(access, projectId, { ...berth.input, ...(berth.limits ? { limits: berth.limits } : {}) }, plain);
        created.push(service);
        for (const e of berth.env) if (referencesIn(e.value).length > 0) later.push({ service, ...e });
      }
      // references last: the services they name exist now, whichever order they came in
      for (const { service, key, value } of later) await this.d.env.upsert(access, service.id, key, value);
    } catch (err) {
      for (const service of [...created].reverse()) {
        await this.d.services.delete(access, service.id).catch((e: unknown) => this.d.log(`compose import: removing ${service.name} after a failed import`, e));
      }
      if (err instanceof Error) {
        const at = plan.order[created.length] ?? 'its variables';
        err.message = `the import stopped at ${at}: ${err.message}${created.length > 0 ? ` (the ${created.length} service(s) it had created were removed)` : ''}`;
      }
      throw err;
    }
    return created;
  }
}

/** A template's variables: the given ones, else the default, else a generated secret; unknown or missing required ones refused. */
function templateVariables(template: ComposeTemplate, given: Record<string, string>, random: (size: number) => Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (const key of Object.keys(given)) {
    if (!template.variables.some((v) => v.name === key)) throw new InvalidInput(`variables.${key.slice(0, 100)}: the template ${template.id} has no such variable`);
  }
  for (const v of template.variables) {
    const value = Object.hasOwn(given, v.name) && given[v.name] !== '' ? given[v.name]! : undefined;
    if (value !== undefined) out.set(v.name, value);
    else if (v.required) throw new InvalidInput(`variables.${v.name}: required by the template ${template.id} (${v.description})`, 'missing_variable');
    else if (v.generate === 'secret') out.set(v.name, random(24).toString('base64url'));
    else if (v.generate === 'hex') out.set(v.name, random(32).toString('hex'));
    else out.set(v.name, v.default ?? '');
  }
  return out;
}
