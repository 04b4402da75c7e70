// The window's calls to one server, made by the main process with the server's key: an API call
// (status and parsed body back), a log stream (its own connection, closed by the caller or
// after `end`) and a POST answered with events (exec). The caller has checked the sender and the route (bridge-handlers.ts).
import { readSse } from '../../shared/sse.js';
import type { BridgeResponse, StreamMessage } from '../ipc/contract.js';
import { connectionError, fetchFor } from './connection.js';
import type { ServerEntry } from './server-list.js';

export async function forwardRequest(s: ServerEntry, key: string, method: string, path: string, body: unknown): Promise<BridgeResponse> {
  try {
    const res = await fetchFor(s)(`${s.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed };
  } catch (err) {
    return { status: 0, body: { error: { code: 'unreachable', message: `${s.name} cannot be reached: ${connectionError(err)}` } } };
  }
}

/** A log stream on its own connection; returns the close. */
export function openLogStream(s: ServerEntry, key: string | undefined, stream: string, deliver: (m: StreamMessage) => void): () => void {
  return openSse(s, key, 'GET', stream, undefined, deliver);
}

/** A POST answered with events (a one-off command's output); a refusal arrives as one `error` event (status, code, message), then closed. */
export function openPostStream(s: ServerEntry, key: string | undefined, path: string, body: unknown, deliver: (m: StreamMessage) => void): () => void {
  return openSse(s, key, 'POST', path, body, deliver);
}

function openSse(s: ServerEntry, key: string | undefined, method: 'GET' | 'POST', stream: string, body: unknown, deliver: (m: StreamMessage) => void): () => void {
  const controller = new AbortController();
  void (async () => {
    try {
      const res = await fetchFor(s)(`${s.url}${stream}`, {
        method,
        headers: { authorization: `Bearer ${key ?? ''}`, accept: 'text/event-stream', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
        signal: controller.signal,
      });
      if (method === 'POST' && !res.ok) {
        const err = (await res.json().catch(() => null)) as { error?: { code?: unknown; message?: unknown } } | null;
        const message = typeof err?.error?.message === 'string' ? err.error.message : `the server answered HTTP ${res.status}`;
        deliver({ type: 'event', event: { event: 'error', data: { status: res.status, code: typeof err?.error?.code === 'string' ? err.error.code : `http_${res.status}`, message } } });
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      deliver({ type: 'state', state: 'open' });
      for await (const e of readSse(res.body as ReadableStream<Uint8Array>)) {
        let data: unknown = e.data;
        try {
          data = JSON.parse(e.data);
        } catch {
          // text
        }
        deliver({ type: 'event', event: { event: e.event, data, ...(e.id !== undefined ? { id: e.id } : {}) } });
      }
    } catch {
      // aborted or failed: reported as closed below
    }
    if (!controller.signal.aborted) deliver({ type: 'state', state: 'closed' });
  })();
  return () => controller.abort();
}
