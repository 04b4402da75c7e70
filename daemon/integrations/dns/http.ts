// One HTTP call to a DNS provider's API, with a time limit. Network failures and timeouts become
// ProviderErrors naming the provider; credentials never appear in a message.
import { ProviderError } from '../../core/errors.js';
import { redactor, type Redactor } from '../../core/redact.js';
export { excerpt, parseJson } from '../http-text.js';
import { isRedirect, redirectRefusal } from '../redirects.js';
import { excerpt, networkReason } from '../http-text.js';

export type FetchLike = typeof fetch;
const DEFAULT_TIMEOUT_MS = 30_000;

export interface DnsEndpoint {
  /** Names the provider in messages, e.g. "Cloudflare". */
  label: string;
  baseUrl: string;
  /** Values scrubbed from every message. */
  secrets: string[];
  timeoutMs?: number | undefined;
  fetch?: FetchLike | undefined;
}

export interface DnsRequest {
  method: string;
  /** Appended to the base URL (may be empty). */
  path: string;
  query?: Record<string, string> | undefined;
  headers?: Record<string, string> | undefined;
  /** A string body is sent as is (set its content-type); anything else as JSON. */
  body?: unknown;
}

export interface DnsAnswer {
  status: number;
  text: string;
}

export async function call(endpoint: DnsEndpoint, req: DnsRequest): Promise<DnsAnswer> {
  const timeoutMs = endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const scrub = scrubber(endpoint);
  const where = `${endpoint.label} at ${endpoint.baseUrl}`;
  let url = endpoint.baseUrl + req.path;
  if (req.query && Object.keys(req.query).length > 0) url += `${url.includes('?') ? '&' : '?'}${new URLSearchParams(req.query).toString()}`;
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let body: string | undefined;
  if (typeof req.body === 'string') body = req.body;
  else if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  try {
    let res: Response;
    try {
      // Credentials travel in headers or the query: a redirect would carry them to whatever
      // host the answer names. Never followed.
      res = await (endpoint.fetch ?? fetch)(url, { method: req.method, headers, body, signal: controller.signal, redirect: 'manual' });
    } catch (err) {
      if (controller.signal.aborted) throw new ProviderError(`${where} did not answer within ${timeoutMs / 1000} s`);
      throw new ProviderError(`could not reach ${where}: ${scrub(networkReason(err))}`);
    }
    if (isRedirect(res.status)) {
      await res.body?.cancel().catch(() => undefined);
      throw new ProviderError(redirectRefusal(where, res, scrub));
    }
    try {
      return { status: res.status, text: await res.text() };
    } catch {
      throw new ProviderError(`${where} closed the connection mid-answer`);
    }
  } finally {
    clearTimeout(timer);
  }
}

function scrubber(endpoint: DnsEndpoint): Redactor {
  const strip = redactor(endpoint.secrets);
  return (text) => {
    let out = text;
    // also exact values, whatever their shape (redactor skips very short ones)
    for (const s of endpoint.secrets) if (s.length >= 8) out = out.split(s).join('[redacted]');
    return strip(out);
  };
}

/** A ProviderError quoting the provider's own message, clipped and scrubbed. */
export function refused(endpoint: DnsEndpoint, status: number, message: string): ProviderError {
  // Namecheap reports refusals inside an HTTP 200 answer: the status is only named when it says something.
  const http = status >= 300 || status < 200 ? ` (HTTP ${status})` : '';
  return new ProviderError(`${endpoint.label} refused the request${http}: ${scrubber(endpoint)(excerpt(message, 500))}`);
}
