// OpenAI's Chat Completions API, which OpenRouter, Ollama, LM Studio and vLLM also serve: give
// their base URL (e.g. http://127.0.0.1:11434/v1 for Ollama).
import type { ExplainProvider } from '../../core/ports/explain-provider.js';
import { postJson, type ProviderEndpoint } from './http.js';
import { notAnExplanation, parseAnswer, SYSTEM_PROMPT, userPrompt } from './prompt.js';

interface ChatCompletion {
  choices?: { message?: { content?: unknown } }[];
}

export function openAiProvider(endpoint: ProviderEndpoint): ExplainProvider {
  return {
    async explain(prompt, model) {
      const answer = (await postJson(
        endpoint,
        '/chat/completions',
        { authorization: `Bearer ${endpoint.apiKey}` },
        {
          model,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: userPrompt(prompt) },
          ],
          temperature: 0,
          response_format: { type: 'json_object' },
        },
      )) as ChatCompletion;
      const content = answer.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw notAnExplanation(JSON.stringify(answer));
      return parseAnswer(content);
    },
  };
}
