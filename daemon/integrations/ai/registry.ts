// Provider ids to providers: `local` is built in; every other id is a configured provider whose
// kind picks the HTTP API, built per request from its stored settings.
import { LOCAL_PROVIDER_ID } from '../../core/ai-providers.js';
import type { AiProviderRecord, AiProviderRepo } from '../../core/ports/ai-provider-repo.js';
import type { ExplainProvider, ProviderRegistry } from '../../core/ports/explain-provider.js';
import { anthropicProvider } from './anthropic.js';
import { geminiProvider } from './gemini.js';
import type { FetchLike, ProviderEndpoint } from './http.js';
import { localProvider } from './local.js';
import { openAiProvider } from './openai.js';

export interface RegistryOptions {
  timeoutMs?: number;
  fetch?: FetchLike;
}

const LABELS: Record<AiProviderRecord['kind'], string> = { openai: 'the OpenAI-compatible API', anthropic: 'Anthropic', gemini: 'Gemini' };

export function providerRegistry(repo: AiProviderRepo, opts: RegistryOptions = {}): ProviderRegistry {
  return {
    async resolve(id) {
      if (id === LOCAL_PROVIDER_ID) return { provider: localProvider, defaultModel: null, needsModel: false };
      const record = await repo.get(id);
      if (!record) return null;
      return { provider: httpProvider(record, opts), defaultModel: record.defaultModel, needsModel: true };
    },
  };
}

function httpProvider(r: AiProviderRecord, opts: RegistryOptions): ExplainProvider {
  const endpoint: ProviderEndpoint = { label: `${LABELS[r.kind]} (provider "${r.id}")`, baseUrl: r.baseUrl, apiKey: r.apiKey, timeoutMs: opts.timeoutMs, fetch: opts.fetch };
  switch (r.kind) {
    case 'openai':
      return openAiProvider(endpoint);
    case 'anthropic':
      return anthropicProvider(endpoint);
    case 'gemini':
      return geminiProvider(endpoint);
  }
}
