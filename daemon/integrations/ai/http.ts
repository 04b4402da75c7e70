// One JSON POST to an AI provider, with a time limit. Every way it can go wrong becomes a
// ProviderError that says which provider and why, in the provider's own words when it gave some;
// the API key (sent in a header) never appears in one.
import { ProviderError } from '../../core/errors.js';
import { redactor } from '../../core/redact.js';
export { excerpt } from '../http-text.js';
import { isRedirect, redirectRefusal } from '../redirects.js';
import { excerpt, networkReason, parseJson } from '../http-text.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_MESSAGE = 500;

export type FetchLike = typeof fetch;

export interface ProviderEndpoint {
  /** Names the provider in error messages, e.g. "Anthropic". */
  label: string;
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number | undefined;
  fetch?: FetchLike | undefined;
}

/** POSTs `body` as JSON to `${baseUrl}${path}` and returns the parsed JSON answer of a 2xx. */
export async function postJson(endpoint: ProviderEndpoint, path: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const timeoutMs = endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const where = `${endpoint.label} at ${endpoint.baseUrl}`;
  const scrub = redactor([endpoint.apiKey]);
  try {
    let res: Response;
    try {
      res = await (endpoint.fetch ?? fetch)(endpoint.baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: controller.signal,
        // The API key travels in a header: a redirect would carry it to whatever host the
        // answer names (a provider's base URL may be anybody's server). Never followed.
        redirect: 'manual',
      });
    } catch (err) {
      if (controller.signal.aborted) throw new ProviderError(`${where} did not answer within ${seconds(timeoutMs)}`);
      throw new ProviderError(`could not reach ${where}: ${scrub(networkReason(err))}`);
    }
    if (isRedirect(res.status)) {
      await res.body?.cancel().catch(() => undefined);
      throw new ProviderError(redirectRefusal(where, res, scrub));
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new ProviderError(controller.signal.aborted ? `${where} did not finish answering within ${seconds(timeoutMs)}` : `${where} closed the connection mid-answer`);
    }
    const json = parseJson(text);
    if (!res.ok) {
      const message = providerMessage(json) ?? (excerpt(text) || res.statusText);
      throw new ProviderError(`${endpoint.label} refused the request (HTTP ${res.status}): ${scrub(clip(message))}`);
    }
    if (json === undefined) throw new ProviderError(`${endpoint.label} answered HTTP ${res.status}, but not with JSON: ${scrub(excerpt(text))}`);
    return json;
  } finally {
    clearTimeout(timer);
  }
}

/** OpenAI, Anthropic and Gemini all put their reason at `error.message`. */
function providerMessage(json: unknown): string | null {
  if (typeof json !== 'object' || json === null) return null;
  const error = (json as { error?: unknown }).error;
  if (typeof error === 'string') return error; // some OpenAI-compatible servers (Ollama) answer {error: "..."}
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') return message;
  }
  return null;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function clip(text: string): string {
  return excerpt(text, MAX_MESSAGE);
}
