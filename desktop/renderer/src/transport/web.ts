// The browser transport: same-origin fetch carrying the HttpOnly session cookie (the key itself
// never reaches JavaScript storage or a URL), EventSource for streams.
import { STREAM_EVENT_NAMES } from '../../../../shared/events.js';
import { ApiError, toApiError, type Method, type StreamListener, type TerminalConnection, type TerminalEvent, type Transport } from './transport';
import { apiPath } from '../../../../shared/api-routes.js';
import { readSse } from '../../../../shared/sse.js';
import type { TerminalResize } from '../../../../shared/types/exec.js';

export class WebTransport implements Transport {
  readonly kind = 'web' as const;

  async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        credentials: 'same-origin',
        headers: body !== undefined ? { 'content-type': 'application/json' } : {},
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch {
      throw new ApiError(0, 'unreachable', 'the Berth daemon cannot be reached; check that it is running');
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!res.ok) throw toApiError(res.status, json);
    return json as T;
  }

  subscribe(path: string, listener: StreamListener): () => void {
    const source = new EventSource(path);
    const seen = new Set<string>();
    const handle = (name: string) => (ev: MessageEvent<string>) => {
      let data: unknown;
      try {
        data = JSON.parse(ev.data);
      } catch {
        data = ev.data;
      }
      listener.onEvent({ event: name, data, ...(ev.lastEventId ? { id: ev.lastEventId } : {}) });
      if (name === 'end') source.close(); // a finished log: do not let EventSource reconnect
    };
    // EventSource needs a listener per event name; these are every name the daemon sends
    for (const name of STREAM_EVENT_NAMES) {
      if (seen.has(name)) continue;
      seen.add(name);
      source.addEventListener(name, handle(name) as EventListener);
    }
    source.onopen = () => listener.onState?.('open');
    source.onerror = () => listener.onState?.(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    return () => source.close();
  }

  /** fetch with the session cookie, the answer's body read as Server-Sent Events (EventSource can only GET). */
  postStream(path: string, body: unknown, listener: StreamListener): () => void {
    const controller = new AbortController();
    void (async () => {
      try {
        const res = await fetch(path, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify(body),
          signal: controller.signal,
        });
        if (!res.ok || !res.body) {
          const err = toApiError(res.status, await res.json().catch(() => null));
          listener.onEvent({ event: 'error', data: { status: err.status, code: err.code, message: err.message } });
          listener.onState?.('closed');
          return;
        }
        listener.onState?.('open');
        for await (const e of readSse(res.body)) {
          let data: unknown = e.data;
          try {
            data = JSON.parse(e.data);
          } catch {
            // text
          }
          listener.onEvent({ event: e.event, data, ...(e.id !== undefined ? { id: e.id } : {}) });
        }
      } catch {
        // aborted, or the connection dropped: reported as closed
      }
      if (!controller.signal.aborted) listener.onState?.('closed');
    })();
    return () => controller.abort();
  }

  /** Same origin (ws: or wss: as the page): the session cookie authenticates it, the daemon checks the Origin. */
  openTerminal(serviceId: string, onEvent: (e: TerminalEvent) => void): TerminalConnection {
    const url = new URL(apiPath('terminal', { serviceId }), location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    let closed = false;
    ws.onopen = () => onEvent({ type: 'open' });
    ws.onmessage = (m: MessageEvent<string | ArrayBuffer>) => onEvent({ type: 'output', data: typeof m.data === 'string' ? m.data : new Uint8Array(m.data) });
    ws.onclose = (c) => {
      if (closed) return;
      closed = true;
      onEvent({ type: 'closed', code: c.code, reason: c.reason });
    };
    const send = (data: string) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(data);
    };
    return {
      // keystrokes go as binary frames: a typed `{"type":"resize",...}` must stay input, never a resize
      input: (data) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(new TextEncoder().encode(data));
      },
      resize: (cols, rows) => send(JSON.stringify({ type: 'resize', cols, rows } satisfies TerminalResize)),
      close: () => {
        closed = true;
        ws.close(1000, 'closed by the user');
      },
    };
  }

  async download(path: string, filename: string): Promise<void> {
    const res = await fetch(path, { credentials: 'same-origin' });
    if (!res.ok) throw toApiError(res.status, await res.json().catch(() => null));
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  async signIn(key: string): Promise<void> {
    await this.request('POST', apiPath('session.open'), { key });
  }

  async signOut(): Promise<void> {
    await this.request('DELETE', apiPath('session.close'));
  }
}
