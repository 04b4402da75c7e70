// The window's calls to one server, made by the main process with the server's key: an API call
// (status and parsed body back) and a log stream (its own connection, closed by the caller or
// after `end`). The caller has checked the sender and the route (bridge-handlers.ts).
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
  const controller = new AbortController();
  void (async () => {
    try {
      const res = await fetchFor(s)(`${s.url}${stream}`, { headers: { authorization: `Bearer ${key ?? ''}`, accept: 'text/event-stream' }, signal: controller.signal });
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
