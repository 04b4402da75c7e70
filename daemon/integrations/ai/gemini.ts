// Google's Gemini API (generateContent), asked for a JSON answer.
import type { ExplainProvider } from '../../core/ports/explain-provider.js';
import { postJson, type ProviderEndpoint } from './http.js';
import { notAnExplanation, parseAnswer, SYSTEM_PROMPT, userPrompt } from './prompt.js';

interface GenerateContentResponse {
  candidates?: { content?: { parts?: { text?: unknown }[] } }[];
}

export function geminiProvider(endpoint: ProviderEndpoint): ExplainProvider {
  return {
    async explain(prompt, model) {
      const answer = (await postJson(
        endpoint,
        `/v1beta/models/${encodeURIComponent(model.replace(/^models\//, ''))}:generateContent`,
        { 'x-goog-api-key': endpoint.apiKey },
        {
          systemInstruction: { parts: [{ text: SYSTEM_PROMPT }] },
          contents: [{ role: 'user', parts: [{ text: userPrompt(prompt) }] }],
          generationConfig: { responseMimeType: 'application/json', temperature: 0 },
        },
      )) as GenerateContentResponse;
      // A blocked prompt has no candidates: the answer itself (promptFeedback) says why.
      const parts = answer.candidates?.[0]?.content?.parts;
      const texts = Array.isArray(parts) ? parts.map((p) => p?.text).filter((t): t is string => typeof t === 'string') : [];
      if (texts.length === 0) throw notAnExplanation(JSON.stringify(answer));
      return parseAnswer(texts.join(''));
    },
  };
}
