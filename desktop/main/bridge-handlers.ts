// What the preload's calls reach in the main process (the invoke channels of
// desktop/ipc/contract.ts; ipc-main.ts registers them): `request(serverId, method, path, body)`,
// `subscribe(serverId, stream)`, `download(serverId, path, suggestedName)`, `servers()`,
// `postStream(serverId, path, body)` (exec) and `terminal(serverId, path)` (a WebSocket relay).
// Every call is checked first: the sender must be the
// main frame of one of the app's own windows showing the app's own origin (GitHub Desktop's
// isTrustedIPCSender is the model), the route must be on the allow-list; then the main process
// adds the server's key. Keys never cross into the renderer.
import { APP_SERVER_ID, type BridgeResponse, type DownloadResult, type ServerSummary, type StreamMessage, type TerminalHandle, type TerminalMessage } from '../ipc/contract.js';
import { isAllowedDownload, isAllowedPostStream, isAllowedRequest, isAllowedStream, isAllowedWebSocket } from './routes.js';

export type { BridgeResponse, StreamMessage } from '../ipc/contract.js';

/** What the main process knows about an IPC call's sender (from Electron's IpcMainInvokeEvent). */
export interface IpcSender {
  webContentsId: number;
  /** The URL of the frame that sent the call; null when the frame is gone. */
  frameUrl: string | null;
  isMainFrame: boolean;
}

export class RefusedCallError extends Error {
  override name = 'RefusedCallError';
}

export interface BridgeBackend {
  /** Forwards an allowed call to the server with its key; resolves with status and parsed body. */
  forward(serverId: string, method: string, path: string, body: unknown): Promise<BridgeResponse>;
  /** Opens an allowed stream (for /api/events: joins the server's one stream); returns the unsubscribe. */
  open(serverId: string, stream: string, deliver: (m: StreamMessage) => void): () => void;
  /** Asks for a file (save dialog) and streams an allowed download into it with the key. */
  download(serverId: string, path: string, suggestedName: string): Promise<DownloadResult>;
  /** Starts an allowed POST whose answer is events (exec) with the key; returns the stop. */
  postStream(serverId: string, path: string, body: unknown, deliver: (m: StreamMessage) => void): () => void;
  /** Opens an allowed WebSocket (a terminal) with the key and relays its frames. */
  terminal(serverId: string, path: string, deliver: (m: TerminalMessage) => void): TerminalHandle;
  hasServer(serverId: string): boolean;
  serverSummaries(): ServerSummary[];
  /** The app's own routes (server id `app`, paths under /desktop/): managing the server list. */
  local(method: string, path: string, body: unknown): Promise<BridgeResponse>;
}

export interface TrustPolicy {
  /** The origin the app's pages are served from (e.g. berth-app://console). */
  appOrigin: string;
  /** webContents ids of the app's own windows. */
  trustedWebContents: Set<number>;
}

function isTrustedSender(sender: IpcSender, policy: TrustPolicy): boolean {
  if (!policy.trustedWebContents.has(sender.webContentsId)) return false;
  if (!sender.isMainFrame || !sender.frameUrl) return false;
  try {
    const u = new URL(sender.frameUrl);
    const origin = u.origin !== 'null' ? u.origin : `${u.protocol}//${u.host}`;
    return origin === policy.appOrigin;
  } catch {
    return false;
  }
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

export function createBridgeHandlers(backend: BridgeBackend, policy: TrustPolicy) {
  const check = (sender: IpcSender, serverId: unknown) => {
    if (!isTrustedSender(sender, policy)) throw new RefusedCallError('refused: the call does not come from the Berth window');
    if (typeof serverId !== 'string' || !backend.hasServer(serverId)) throw new RefusedCallError('refused: unknown server');
  };
  return {
    async request(sender: IpcSender, serverId: unknown, method: unknown, path: unknown, body: unknown): Promise<BridgeResponse> {
      if (serverId === APP_SERVER_ID) {
        if (!isTrustedSender(sender, policy)) throw new RefusedCallError('refused: the call does not come from the Berth window');
        if (typeof method !== 'string' || !METHODS.has(method) || typeof path !== 'string' || !/^\/desktop\/[a-z0-9/-]*$/.test(path))
          throw new RefusedCallError(`refused: ${String(method)} ${String(path)} is not a route of the app`);
        return backend.local(method, path, body);
      }
      check(sender, serverId);
      if (typeof method !== 'string' || !METHODS.has(method) || typeof path !== 'string' || !isAllowedRequest(method, path)) {
        throw new RefusedCallError(`refused: ${String(method)} ${String(path)} is not an API route the app uses`);
      }
      return backend.forward(serverId as string, method, path, body);
    },
    subscribe(sender: IpcSender, serverId: unknown, stream: unknown, deliver: (m: StreamMessage) => void): () => void {
      check(sender, serverId);
      if (typeof stream !== 'string' || !isAllowedStream(stream)) throw new RefusedCallError(`refused: ${String(stream)} is not an event stream the app uses`);
      return backend.open(serverId as string, stream, deliver);
    },
    async download(sender: IpcSender, serverId: unknown, path: unknown, suggestedName: unknown): Promise<DownloadResult> {
      check(sender, serverId);
      if (typeof path !== 'string' || !isAllowedDownload(path)) throw new RefusedCallError(`refused: ${String(path)} is not a download the app offers`);
      return backend.download(serverId as string, path, typeof suggestedName === 'string' ? suggestedName : '');
    },
    postStream(sender: IpcSender, serverId: unknown, path: unknown, body: unknown, deliver: (m: StreamMessage) => void): () => void {
      check(sender, serverId);
      if (typeof path !== 'string' || !isAllowedPostStream(path)) throw new RefusedCallError(`refused: POST ${String(path)} is not a command stream the app uses`);
      return backend.postStream(serverId as string, path, body, deliver);
    },
    terminal(sender: IpcSender, serverId: unknown, path: unknown, deliver: (m: TerminalMessage) => void): TerminalHandle {
      check(sender, serverId);
      if (typeof path !== 'string' || !isAllowedWebSocket(path)) throw new RefusedCallError(`refused: ${String(path)} is not a terminal the app opens`);
      return backend.terminal(serverId as string, path, deliver);
    },
    /** Input, resize and close of an open terminal: only from the Berth window. */
    checkSender(sender: IpcSender): void {
      if (!isTrustedSender(sender, policy)) throw new RefusedCallError('refused: the call does not come from the Berth window');
    },
    servers(sender: IpcSender): ServerSummary[] {
      if (!isTrustedSender(sender, policy)) throw new RefusedCallError('refused: the call does not come from the Berth window');
      return backend.serverSummaries();
    },
  };
}

export type BridgeHandlers = ReturnType<typeof createBridgeHandlers>;
