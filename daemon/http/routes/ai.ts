// Failure explanations and the AI provider settings behind them.
import type Router from '@koa/router';
import { z } from 'zod';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse } from '../validate.js';

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

export function aiRoutes(router: Router, { core }: AppServices): void {
  router.post('/api/deployments/:deploymentId/explain-failure', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const input = parse(explainBody, ctx.request.body);
    ctx.body = { explanation: await core.explainer.explain(access, ctx.params.deploymentId!, input) };
  });

  router.get('/api/system/ai-providers', async (ctx) => {
    ctx.body = { providers: await core.aiProviders.list(accessOf(ctx)) };
  });

  router.put('/api/system/ai-providers/:providerId', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('managing AI providers');
    const input = parse(providerPut, ctx.request.body);
    ctx.body = { provider: await core.aiProviders.put(access, ctx.params.providerId!, input) };
  });

  router.delete('/api/system/ai-providers/:providerId', async (ctx) => {
    await core.aiProviders.delete(accessOf(ctx), ctx.params.providerId!);
    ctx.body = { ok: true };
  });
}
