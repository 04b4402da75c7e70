// Explaining a failed deployment: gather what a reader of the failure needs (the build method, the
// framework, the end of the build log and of the container's output), redact every secret of the
// project from it, and ask a provider: the built-in rules or an AI provider's HTTP API. The answer
// is checked field by field; a provider that answers something else is reported, never patched up.
import type { Explanation } from '../../shared/types.js';
import type { Access } from './access.js';
import { EnvResolver } from './env-references.js';
import { Conflict, InvalidInput, ProviderError } from './errors.js';
import type { DeploymentRecord, ServiceRecord } from './records.js';
import { redactor } from './redact.js';
import type { Store } from './ports/store.js';
import type { ExplainPrompt, FailureLogs, ProviderRegistry } from './ports/explain-provider.js';

/** Lines taken from the end of each log. */
const LOG_TAIL_LINES = 150;
/** A longer line (a minified bundle, a base64 blob) is cut: the prompt stays a few hundred KB at most. */
const MAX_LINE_CHARS = 2000;

interface DeploymentLookup {
  visible(access: Access, deploymentId: string): Promise<{ deployment: DeploymentRecord; service: ServiceRecord }>;
}

export interface ExplainDeps {
  deployments: DeploymentLookup;
  store: Pick<Store, 'services' | 'env'>;
  logs: FailureLogs;
  providers: ProviderRegistry;
}

export interface ExplainInput {
  providerId: string;
  model?: string | null | undefined;
}

export class FailureExplainer {
  constructor(private deps: ExplainDeps) {}

  async explain(access: Access, deploymentId: string, input: ExplainInput): Promise<Explanation> {
    access.requireWrite();
    const { deployment, service } = await this.deps.deployments.visible(access, deploymentId);
    const resolved = await this.deps.providers.resolve(input.providerId);
    if (!resolved) throw new InvalidInput(`no AI provider "${input.providerId}": use "local" or one configured under /api/system/ai-providers`, 'unknown_provider');
    const model = input.model ?? resolved.defaultModel ?? '';
    if (resolved.needsModel && model === '') throw new InvalidInput(`model: provider "${input.providerId}" has no default model; name one`);
    if (deployment.status !== 'failed') {
      throw new Conflict(`deployment is ${deployment.status}; only a failed deployment can be explained`, 'not_failed');
    }
    const prompt = await this.gather(deployment, service);
    return checkExplanation(await resolved.provider.explain(prompt, model));
  }

  private async gather(deployment: DeploymentRecord, service: ServiceRecord): Promise<ExplainPrompt> {
    const services = await this.deps.store.services.list([service.projectId]);
    const env = await this.deps.store.env.listByServices(services.map((s) => s.id));
    const resolver = new EnvResolver(services, env);
    const secrets = [...env.map((e) => e.value), ...env.map((e) => resolver.resolveLenient(e.value)), ...services.flatMap((s) => (s.githubToken ? [s.githubToken] : []))];
    const redact = redactor(secrets);
    const clean = (lines: string[]) =>
      lines.map((l) => {
        const line = redact(stripTerminalCodes(l));
        return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}... (cut)` : line;
      });
    const [buildLog, runtimeLog] = await Promise.all([this.deps.logs.buildTail(deployment.id, LOG_TAIL_LINES), this.deps.logs.runtimeTail(service.id, deployment.id, LOG_TAIL_LINES)]);
    return {
      service: { id: service.id, name: service.name, kind: service.kind, runtimeMode: service.runtimeMode, internalPort: service.internalPort },
      configuredBuildMethod: service.buildMethod,
      buildMethod: deployment.buildMethod ?? service.detectedBuildMethod,
      framework: service.framework,
      envKeys: env.filter((e) => e.serviceId === service.id).map((e) => e.key),
      buildLog: clean(buildLog),
      runtimeLog: clean(runtimeLog),
    };
  }
}

/** Colour and cursor codes (docker build output is full of them) say nothing to a reader. */
export function stripTerminalCodes(line: string): string {
  // eslint-disable-next-line no-control-regex -- terminal escape sequences start with ESC
  return line.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\u001b[()][0-9A-Za-z]/g, '');
}

/** The exact explanation shape, or null: strings for the three texts, an array of strings for commands. */
export function explanationFrom(value: unknown): Explanation | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const text = (x: unknown): x is string => typeof x === 'string' && x.trim() !== '';
  if (!text(v.summary) || !text(v.likelyCause) || !text(v.suggestedFix)) return null;
  if (!Array.isArray(v.commands) || !v.commands.every((c): c is string => typeof c === 'string')) return null;
  // Only the four fields leave, whatever else the provider added.
  return { summary: v.summary, likelyCause: v.likelyCause, suggestedFix: v.suggestedFix, commands: v.commands.filter((c) => c.trim() !== '') };
}

function checkExplanation(value: unknown): Explanation {
  const explanation = explanationFrom(value);
  if (!explanation) throw new ProviderError('the provider answered, but not with an explanation');
  return explanation;
}
