// The client's transport: one HTTP call, the JSON call that throws ApiError on an error status,
// a route of the shared table called by id (its method and path from shared/api-routes.ts), file
// downloads and Server-Sent Events streams. The area clients (projects, system, databases) build on it.
import { routeById, routePath, type QueryValues, type RouteId, type RouteParams } from '../api-routes.js';
import type { FetchLike } from '../pinned-tls.js';
import { readSse, type SseEvent } from '../sse.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RawResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  /** Send this string as the body as-is (for malformed input); overrides `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Override the client's token for this call; null sends no Authorization header. */
  token?: string | null;
  signal?: AbortSignal;
}

export interface ClientOptions {
  /** The fetch to use (default: the global one); `pinnedFetch` from pinned-tls.ts pins a self-signed certificate. */
  fetch?: FetchLike;
}

export class ClientBase {
  readonly baseUrl: string;
  protected readonly fetch: FetchLike;

  constructor(
    baseUrl: string,
    protected token: string | null = null,
    protected readonly options: ClientOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** One HTTP call; never throws on an HTTP status, only on a network failure. */
  async request<T = unknown>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<RawResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    const token = opts.token === undefined ? this.token : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (opts.rawBody !== undefined) payload = opts.rawBody;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const res = await this.fetch(this.baseUrl + path, { method, headers, body: payload, signal: opts.signal });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') && text ? (JSON.parse(text) as T) : (text as T);
    return { status: res.status, headers: res.headers, body: parsed };
  }

  protected async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request<T>(method, path, body);
    if (res.status >= 400) {
      const err = (res.body as { error?: { code?: string; message?: string } })?.error;
      throw new ApiError(res.status, err?.code ?? 'http_error', err?.message ?? `HTTP ${res.status}`);
    }
    return res.body;
  }

  /** A route of the table by id: its method, its path with `params` (and `query`), the JSON answer. */
  protected api<T, Id extends RouteId = RouteId>(id: Id, params: RouteParams<Id>, body?: unknown, query?: QueryValues): Promise<T> {
    return this.call<T>(routeById(id).method, routePath(id, params, query), body);
  }

  /** A download route's response, for streaming a big file to disk; throws ApiError on an error status. */
  protected async openDownload<Id extends RouteId>(id: Id, params: RouteParams<Id>, signal?: AbortSignal): Promise<Response> {
    const res = await this.fetch(this.baseUrl + routePath(id, params), {
      headers: this.token ? { authorization: `Bearer ${this.token}` } : {},
      signal,
    });
    if (res.status >= 400) {
      const err = ((await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } }).error;
      throw new ApiError(res.status, err?.code ?? 'http_error', err?.message ?? `HTTP ${res.status}`);
    }
    return res;
  }

  /**
   * Reads a Server-Sent Events endpoint; yields events until the server closes or `signal` aborts.
   * A POST with a JSON `body` (a one-off command) is answered with a stream too.
   */
  async *stream(path: string, opts: { lastEventId?: string; signal?: AbortSignal; method?: 'GET' | 'POST'; body?: unknown } = {}): AsyncGenerator<SseEvent> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.token !== null) headers.authorization = `Bearer ${this.token}`;
    if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetch(this.baseUrl + path, { method: opts.method ?? 'GET', headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: opts.signal });
    if (!res.ok || !res.body) {
      const text = await res.text();
      let code = 'http_error';
      let message = `HTTP ${res.status}`;
      try {
        const parsed = JSON.parse(text) as { error: { code: string; message: string } };
        code = parsed.error.code;
        message = parsed.error.message;
      } catch {
        // not a JSON error body; keep the status line
      }
      throw new ApiError(res.status, code, message);
    }
    yield* readSse(res.body);
  }
}
