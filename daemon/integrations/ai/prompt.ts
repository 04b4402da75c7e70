// What an AI provider is asked, and how its answer is read. The same text goes to every vendor;
// the answer must be one JSON object with exactly the explanation's four fields.
import type { Explanation } from '../../../shared/types.js';
import { ProviderError } from '../../core/errors.js';
import { explanationFrom } from '../../core/explain.js';
import type { ExplainPrompt } from '../../core/ports/explain-provider.js';
import { excerpt } from './http.js';

export const SYSTEM_PROMPT = [
  'You explain why a deployment on Berth, a self-hosted deployment platform, failed.',
  'Berth clones the repository, builds a Docker image (from the Dockerfile, or an automatic build), starts one container',
  "with the environment variable PORT set to the service's internal port, and waits until the app answers on that port.",
  'Read the logs you are given and name the most likely cause, based only on what the logs show.',
  'If the logs do not show the cause, say so instead of guessing. Values shown as [redacted] are secrets removed on purpose.',
  'Answer with one JSON object and nothing else: no prose around it, no Markdown.',
  'It has exactly these keys:',
  '"summary" (string: one or two sentences saying what failed),',
  '"likelyCause" (string: the most likely cause, starting with a short name of the cause),',
  '"suggestedFix" (string: what to change),',
  '"commands" (array of strings: shell commands that help, or an empty array).',
].join(' ');

export function userPrompt(p: ExplainPrompt): string {
  const section = (title: string, lines: string[]) => [`${title}:`, ...(lines.length > 0 ? lines : ['(no lines)'])].join('\n');
  return [
    `Service: ${p.service.name} (${p.service.kind} service, runtime mode ${p.service.runtimeMode}, internal port ${p.service.internalPort ?? 'none'})`,
    `Build method: ${p.buildMethod ?? 'not decided (the deployment failed before the build)'} (configured: ${p.configuredBuildMethod})`,
    `Detected framework: ${p.framework ?? 'unknown'}`,
    `Environment variables set on the service (names only): ${p.envKeys.length > 0 ? p.envKeys.join(', ') : 'none'}`,
    '',
    section(`Build log (the last ${p.buildLog.length} lines)`, p.buildLog),
    '',
    section(`Output of the deployment's container (the last ${p.runtimeLog.length} lines)`, p.runtimeLog),
    '',
    'Answer with the JSON object described in your instructions.',
  ].join('\n');
}

/** Reads the model's text as an explanation; anything else is a ProviderError quoting its start. */
export function parseAnswer(text: string): Explanation {
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '')
    .trim();
  let value: unknown;
  try {
    value = JSON.parse(unfenced) as unknown;
  } catch {
    value = undefined;
  }
  const explanation = explanationFrom(value);
  if (!explanation) throw notAnExplanation(text);
  return explanation;
}

export function notAnExplanation(answer: string): ProviderError {
  return new ProviderError(`the provider answered, but not with an explanation: ${excerpt(answer) || '(empty answer)'}`);
}
