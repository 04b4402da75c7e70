// The browser transport: same-origin fetch carrying the HttpOnly session cookie (the key itself
// never reaches JavaScript storage or a URL), EventSource for streams.
import { STREAM_EVENT_NAMES } from '../../../../shared/events.js';
import { ApiError, toApiError, type Method, type StreamListener, type Transport } from './transport';
import { apiPath } from '../../../../shared/api-routes.js';

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
