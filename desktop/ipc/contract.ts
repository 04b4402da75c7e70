// The desktop app's IPC contract, stated once: every channel between the window (renderer, through
// the sandboxed preload) and the main process, with its arguments and result, the messages the
// main process pushes, the app's own /desktop/ routes, and `window.berth`, the API the preload
// exposes. Main (desktop/main/ipc-main.ts) imports the channel names at run time; the preload
// (CommonJS, sandboxed: it can require nothing but `electron`) and the renderer (bundled by Vite)
// import it type-only, the preload typing its literals against IpcChannels so a drift fails the
// build. VS Code's `common/` beside `electron-main/` and `electron-sandbox/` is the model.
// Plain types only: no Node, DOM or Electron imports, so all three programs can read it.

/** The channel names. Invoke channels are `ipcRenderer.invoke` -> `ipcMain.handle`; `stream` is pushed by main. */
export const IPC_CHANNELS = {
  request: 'berth:request',
  servers: 'berth:servers',
  subscribe: 'berth:subscribe',
  unsubscribe: 'berth:unsubscribe',
  download: 'berth:download',
  stream: 'berth:stream',
  postStream: 'berth:post-stream',
  terminalOpen: 'berth:terminal-open',
  terminalInput: 'berth:terminal-input',
  terminalResize: 'berth:terminal-resize',
  terminalClose: 'berth:terminal-close',
  terminal: 'berth:terminal',
} as const;

export type IpcChannels = typeof IPC_CHANNELS;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** An API answer as the main process forwards it: the HTTP status (0: unreachable) and the parsed body. */
export interface BridgeResponse {
  status: number;
  body: unknown;
}

/** One Server-Sent Event (the daemon's event stream, a log stream), `data` parsed when it is JSON. */
export interface IpcStreamEvent {
  event: string;
  data: unknown;
  id?: string;
}

export type IpcStreamState = 'open' | 'reconnecting' | 'closed';

/** What main pushes on the `stream` channel for one subscription. */
export type StreamMessage = { type: 'event'; event: IpcStreamEvent } | { type: 'state'; state: IpcStreamState };

/**
 * What main pushes on the `terminal` channel for one terminal: the WebSocket to the daemon opened,
 * a frame of output (text or bytes, as the daemon sent it), or the end (the close code and the
 * daemon's reason: idle timeout, cap reached, service not running).
 */
export type TerminalMessage = { type: 'open' } | { type: 'output'; data: string | Uint8Array } | { type: 'closed'; code: number; reason: string };

/** The window's end of a terminal the main process relays (`openTerminal` of BerthApi). */
export interface TerminalHandle {
  /** Raw input (keystrokes, a paste). */
  input(data: string): void;
  resize(cols: number, rows: number): void;
  close(): void;
}

/** A download's outcome: saved (where, how many bytes), cancelled in the dialog, or refused by the server. */
export type DownloadResult = { saved: true; path: string; bytes: number } | { saved: false; failure?: BridgeResponse };

type ServerOverallState = 'none' | 'ok' | 'building' | 'failed' | 'offline';

interface ServerConnection {
  status: 'connecting' | 'online' | 'offline';
  /** When the server went offline (ms since epoch); set while offline. */
  since?: number;
  error?: string;
}

/** One server as the window sees it: names and states, never its key. */
export interface ServerSummary {
  id: string;
  name: string;
  url: string;
  colour: string;
  muted: boolean;
  pinned: boolean;
  hasKey: boolean;
  connection: ServerConnection;
  state: ServerOverallState;
  failed: string[];
  building: string[];
  lastFailed?: { deploymentId: string; serviceId: string; at: string };
}

/** Each invoke channel: the arguments after the event, and what the handler resolves with. */
export interface IpcInvokeContract {
  request: { args: [serverId: string, method: HttpMethod, path: string, body?: unknown]; result: BridgeResponse };
  servers: { args: []; result: ServerSummary[] };
  /** `subscriptionId` is the preload's; main pushes that subscription's messages on `stream` with it. */
  subscribe: { args: [serverId: string, stream: string, subscriptionId: string]; result: void };
  unsubscribe: { args: [subscriptionId: string]; result: void };
  /** The main process asks for a file (save dialog) and streams the answer into it, adding the key itself. */
  download: { args: [serverId: string, path: string, suggestedName: string]; result: DownloadResult };
  /** A POST whose answer is Server-Sent Events (a one-off command's output): pushed on `stream` as `subscribe` is; `unsubscribe` ends it. */
  postStream: { args: [serverId: string, path: string, body: unknown, subscriptionId: string]; result: void };
  /** Main opens the terminal WebSocket (`path`, the `terminal` route) with the key and pushes its messages on `terminal` with `terminalId`. */
  terminalOpen: { args: [serverId: string, path: string, terminalId: string]; result: void };
  terminalInput: { args: [terminalId: string, data: string]; result: void };
  terminalResize: { args: [terminalId: string, cols: number, rows: number]; result: void };
  terminalClose: { args: [terminalId: string]; result: void };
}

/** Each channel main sends on: its arguments. */
export interface IpcPushContract {
  stream: { args: [subscriptionId: string, message: StreamMessage] };
  terminal: { args: [terminalId: string, message: TerminalMessage] };
}

export type IpcInvokeName = keyof IpcInvokeContract;

/** The pseudo-server whose routes (paths under /desktop/) the main process answers itself. */
export const APP_SERVER_ID = 'app';

export interface ServerTestResult {
  ok: boolean;
  version?: string;
  key?: { id: string; name: string; access: string; projects: 'all' | string[] };
  error?: string;
}

/** Where the app keeps the keys: the OS keychain, or what the user chose when it is weak. */
interface KeyStoreStatus {
  mode: 'keychain' | 'plain-file' | 'ask-each-launch' | 'refused';
  /** Electron's safeStorage backend (e.g. gnome_libsecret, basic_text). */
  backend: string;
  /** Where keys are kept, for the settings screen. */
  where: string;
  /** A store that could not be read, moved aside to this path. */
  corruptBackup: string | null;
}

/**
 * The app's own routes, reached as `request('app', method, path, body)`: `body` is what the window
 * sends, `answer` the 2xx body. Errors are `{error: {code, message}}` (409 `weak_keychain` adds
 * `choices`). A key only ever travels from the window to the main process, never back.
 */
export interface AppRoutes {
  'GET /desktop/servers': { body: undefined; answer: { servers: ServerSummary[]; keys: KeyStoreStatus; choices: { id: string; label: string }[] } };
  'POST /desktop/servers': { body: { url: string; key: string; name?: string; fingerprint?: string }; answer: { server: ServerSummary | undefined; test: ServerTestResult } };
  'PATCH /desktop/servers/:id': { body: { name?: string; colour?: string; muted?: boolean; fingerprint?: string }; answer: { server: ServerSummary | undefined } };
  'DELETE /desktop/servers/:id': { body: undefined; answer: { ok: true } };
  'POST /desktop/servers/:id/test': { body: undefined; answer: { test: ServerTestResult } };
  'POST /desktop/servers/:id/key': { body: { key: string }; answer: { test: ServerTestResult } };
  'POST /desktop/keychain': { body: { choice: 'plain-file' | 'ask-each-launch' }; answer: { keys: KeyStoreStatus } };
}

/** `window.berth`: what the preload exposes, and all that crosses into the renderer. */
export interface BerthApi {
  request(serverId: string, method: HttpMethod, path: string, body?: unknown): Promise<BridgeResponse>;
  /** Returns the unsubscribe. */
  subscribe(serverId: string, stream: string, onEvent: (e: IpcStreamEvent) => void, onState?: (s: IpcStreamState) => void): () => void;
  /** Saves a non-JSON answer (a backup, a CA certificate) to a file the user picks. */
  download(serverId: string, path: string, suggestedName: string): Promise<DownloadResult>;
  servers(): Promise<ServerSummary[]>;
  /** A POST answered with Server-Sent Events (exec); returns the stop. */
  postStream(serverId: string, path: string, body: unknown, onEvent: (e: IpcStreamEvent) => void, onState?: (s: IpcStreamState) => void): () => void;
  /** A terminal (the `terminal` route's WebSocket, opened by the main process with the key). */
  openTerminal(serverId: string, path: string, onMessage: (m: TerminalMessage) => void): TerminalHandle;
}
