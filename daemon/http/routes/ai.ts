// Failure explanations and the AI provider settings behind them.
import { z } from 'zod';
import { route } from '../route-table.js';

const explainBody = z.object({
  providerId: z.string().min(1, 'must not be empty').max(100),
  // optional when the provider has a default model; ignored by `local`
  model: z.string().trim().min(1, 'must not be empty').max(200).nullable().optional(),
});

// Settings are strict: a misspelt field (apikey) must not pass silently.
const providerPut = z.strictObject({
  kind: z.enum(['openai', 'anthropic', 'gemini']),
  name: z.string().trim().min(1, 'must not be empty').max(100).optional(),
  baseUrl: z.string().max(2048).optional(),
  apiKey: z.string().trim().min(1, 'must not be empty').max(4096).optional(),
  defaultModel: z.string().trim().min(1, 'must not be empty').max(200).nullable().optional(),
});

export const aiRoutes = {
  ...route('deployments.explain-failure', {
    body: explainBody,
    handler: async ({ access, params, body }, { core }) => ({ explanation: await core.explainer.explain(access, params.deploymentId, body) }),
  }),
  ...route('ai-providers.list', { handler: async ({ access }, { core }) => ({ providers: await core.aiProviders.list(access) }) }),
  ...route('ai-providers.put', {
    body: providerPut,
    handler: async ({ access, params, body }, { core }) => ({ provider: await core.aiProviders.put(access, params.providerId, body) }),
  }),
  ...route('ai-providers.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.aiProviders.delete(access, params.providerId);
      return { ok: true };
    },
  }),
};
