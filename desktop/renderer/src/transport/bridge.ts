// The desktop transport: the Electron preload exposes window.berth, the BerthApi of the IPC
// contract (desktop/ipc/contract.ts). The main process holds the keys, checks each call against
// the API's routes and adds the key; the renderer only names a server and a path.
import type { BerthApi } from '../../../ipc/contract';
import { toApiError, type Method, type StreamListener, type TerminalConnection, type TerminalEvent, type Transport } from './transport';
import { apiPath } from '../../../../shared/api-routes.js';

/** What the preload exposes; nothing else crosses into the renderer. */
export type BerthBridge = BerthApi;

declare global {
  interface Window {
    berth?: BerthBridge;
  }
}

export class BridgeTransport implements Transport {
  readonly kind = 'desktop' as const;

  constructor(
    private bridge: BerthBridge,
    readonly serverId: string,
  ) {}

  async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const res = await this.bridge.request(this.serverId, method, path, body);
    if (res.status < 200 || res.status >= 300) throw toApiError(res.status, res.body);
    return res.body as T;
  }

  subscribe(path: string, listener: StreamListener): () => void {
    return this.bridge.subscribe(
      this.serverId,
      path,
      (e) => listener.onEvent(e),
      (s) => listener.onState?.(s),
    );
  }

  postStream(path: string, body: unknown, listener: StreamListener): () => void {
    return this.bridge.postStream(
      this.serverId,
      path,
      body,
      (e) => listener.onEvent(e),
      (s) => listener.onState?.(s),
    );
  }

  /** The main process opens the WebSocket with the key (the window never holds it) and relays its frames. */
  openTerminal(serviceId: string, onEvent: (e: TerminalEvent) => void): TerminalConnection {
    return this.bridge.openTerminal(this.serverId, apiPath('terminal', { serviceId }), onEvent);
  }

  /** The main process asks where to save (a cancelled dialog is not an error) and streams the file there. */
  async download(path: string, filename: string): Promise<void> {
    const res = await this.bridge.download(this.serverId, path, filename);
    if (!res.saved && res.failure) throw toApiError(res.failure.status, res.failure.body);
  }
}
