// Explaining a failed deployment: the providers (daemon/integrations/ai/) and the failure's logs
// (daemon/deploy/failure-logs.ts) that core/explain.ts asks.
import type { BuildMethod, Explanation, RuntimeMode } from '../../../shared/types.js';
import type { ServiceKind } from '../records.js';

/** Everything a provider is told about one failure; secrets are already redacted. */
export interface ExplainPrompt {
  service: { id: string; name: string; kind: ServiceKind; runtimeMode: RuntimeMode; internalPort: number | null };
  /** As configured on the service. */
  configuredBuildMethod: BuildMethod;
  /** What the deployment used: dockerfile, autobuild or image; null when it failed before deciding. */
  buildMethod: string | null;
  framework: string | null;
  /** Names only: values never leave the server. */
  envKeys: string[];
  buildLog: string[];
  /** What the deployment's container wrote (empty when it never ran). */
  runtimeLog: string[];
}

/** The port every provider implements; `model` is the provider's model name (ignored by `local`). */
export interface ExplainProvider {
  explain(prompt: ExplainPrompt, model: string): Promise<Explanation>;
}

interface ResolvedProvider {
  provider: ExplainProvider;
  defaultModel: string | null;
  /** False for the built-in rules, which have no models. */
  needsModel: boolean;
}

export interface ProviderRegistry {
  /** null for an id that is neither built in nor configured. */
  resolve(providerId: string): Promise<ResolvedProvider | null>;
}

export interface FailureLogs {
  /** The newest `n` lines of the deployment's build log, oldest first. */
  buildTail(deploymentId: string, n: number): Promise<string[]>;
  /** The newest `n` lines the deployment's container wrote, oldest first. */
  runtimeTail(serviceId: string, deploymentId: string, n: number): Promise<string[]>;
}
