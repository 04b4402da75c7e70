// Anthropic's Messages API.
import type { ExplainProvider } from '../../core/ports/explain-provider.js';
import { postJson, type ProviderEndpoint } from './http.js';
import { notAnExplanation, parseAnswer, SYSTEM_PROMPT, userPrompt } from './prompt.js';

const ANTHROPIC_VERSION = '2023-06-01';

interface Message {
  content?: { type?: unknown; text?: unknown }[];
}

export function anthropicProvider(endpoint: ProviderEndpoint): ExplainProvider {
  return {
    async explain(prompt, model) {
      const answer = (await postJson(
        endpoint,
        '/v1/messages',
        { 'x-api-key': endpoint.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        {
          model,
          max_tokens: 1024,
          system: SYSTEM_PROMPT,
          messages: [{ role: 'user', content: userPrompt(prompt) }],
        },
      )) as Message;
      const text = Array.isArray(answer.content) ? answer.content.find((c) => c?.type === 'text')?.text : undefined;
      if (typeof text !== 'string') throw notAnExplanation(JSON.stringify(answer));
      return parseAnswer(text);
    },
  };
}
