// The desktop transport: the Electron preload exposes window.berth (issue 15). The main process
// holds the keys, checks each call against the API's routes and adds the key; the renderer only
// names a server and a path.
import { toApiError, type Method, type StreamEvent, type StreamListener, type StreamState, type Transport } from './transport';

interface BridgeResponse {
  status: number;
  body: unknown;
}

/** What the preload exposes; nothing else crosses into the renderer. */
export interface BerthBridge {
  request(serverId: string, method: Method, path: string, body?: unknown): Promise<BridgeResponse>;
  subscribe(serverId: string, stream: string, onEvent: (e: StreamEvent) => void, onState?: (s: StreamState) => void): () => void;
  /** Saves a non-JSON answer to disk through the main process (a save dialog). */
  download?(serverId: string, path: string, filename: string): Promise<void>;
  servers?(): Promise<{ id: string; name: string }[]>;
}


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
    return this.bridge.subscribe(this.serverId, path, (e) => listener.onEvent(e), (s) => listener.onState?.(s));
  }

  async download(path: string, filename: string): Promise<void> {
    if (!this.bridge.download) throw new Error('this version of the desktop app cannot save files');
    await this.bridge.download(this.serverId, path, filename);
  }
}
