// The main process's side of the IPC contract (desktop/ipc/contract.ts): registers a handler for
// every invoke channel on Electron's ipcMain (injected: tests pass a stand-in), turns the
// Electron event into the IpcSender the bridge handlers check, and pushes each subscription's
// messages back on the `stream` channel (each terminal's on `terminal`) to the window that opened it.
import { IPC_CHANNELS, type IpcInvokeContract, type IpcInvokeName, type IpcPushContract, type TerminalHandle } from '../ipc/contract.js';
import type { BridgeHandlers, IpcSender } from './bridge-handlers.js';

/** What the handlers use of Electron's WebContents. */
export interface IpcWebContents {
  id: number;
  mainFrame: unknown;
  isDestroyed(): boolean;
  send(channel: string, ...args: unknown[]): void;
  once(event: 'destroyed', listener: () => void): unknown;
}

/** What the handlers use of Electron's IpcMainInvokeEvent. */
export interface IpcInvokeEvent {
  sender: IpcWebContents;
  senderFrame: { url: string } | null;
}

/** What the app uses of Electron's ipcMain. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEvent, ...args: unknown[]) => unknown): void;
}

function senderOf(e: IpcInvokeEvent): IpcSender {
  const frame = e.senderFrame;
  return { webContentsId: e.sender.id, frameUrl: frame?.url ?? null, isMainFrame: Boolean(frame && frame === e.sender.mainFrame) };
}

function push<N extends keyof IpcPushContract>(wc: IpcWebContents, name: N, ...args: IpcPushContract[N]['args']): void {
  if (!wc.isDestroyed()) wc.send(IPC_CHANNELS[name], ...args);
}

/**
 * Arguments arrive untyped from the renderer (a compromised page sends anything): each handler
 * receives them as `unknown` and the bridge handlers check them; the result is the contract's.
 */
type Handler<N extends IpcInvokeName> = (e: IpcInvokeEvent, ...args: unknown[]) => IpcInvokeContract[N]['result'] | Promise<IpcInvokeContract[N]['result']>;

/** Terminal sizes a real window has; anything else is not a resize. */
const isSize = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 1000;
/** The largest input one call carries (a big paste arrives in pieces). */
const MAX_INPUT_CHARS = 64 * 1024;

export function registerIpcHandlers(ipcMain: IpcMainLike, handlers: BridgeHandlers): void {
  const subs = new Map<string, () => void>();
  const terminals = new Map<string, TerminalHandle>();
  const on = <N extends IpcInvokeName>(name: N, handler: Handler<N>) => ipcMain.handle(IPC_CHANNELS[name], handler);
  on('request', (e, serverId, method, path, body) => handlers.request(senderOf(e), serverId, method, path, body));
  on('servers', (e) => handlers.servers(senderOf(e)));
  on('download', (e, serverId, path, suggestedName) => handlers.download(senderOf(e), serverId, path, suggestedName));
  on('subscribe', (e, serverId, stream, id) => {
    const key = `${e.sender.id}:${String(id)}`;
    if (typeof id !== 'string' || subs.has(key)) return;
    const stop = handlers.subscribe(senderOf(e), serverId, stream, (m) => push(e.sender, 'stream', id, m));
    subs.set(key, stop);
    e.sender.once('destroyed', () => {
      subs.get(key)?.();
      subs.delete(key);
    });
  });
  on('postStream', (e, serverId, path, body, id) => {
    const key = `${e.sender.id}:${String(id)}`;
    if (typeof id !== 'string' || subs.has(key)) return;
    const stop = handlers.postStream(senderOf(e), serverId, path, body, (m) => push(e.sender, 'stream', id, m));
    subs.set(key, stop);
    e.sender.once('destroyed', () => {
      subs.get(key)?.();
      subs.delete(key);
    });
  });
  // a terminal belongs to the window that opened it: another window cannot type into it or close it
  on('terminalOpen', (e, serverId, path, id) => {
    const key = `${e.sender.id}:${String(id)}`;
    if (typeof id !== 'string' || terminals.has(key)) return;
    const handle = handlers.terminal(senderOf(e), serverId, path, (m) => {
      if (m.type === 'closed') terminals.delete(key);
      push(e.sender, 'terminal', id, m);
    });
    terminals.set(key, handle);
    e.sender.once('destroyed', () => {
      terminals.get(key)?.close();
      terminals.delete(key);
    });
  });
  on('terminalInput', (e, id, data) => {
    handlers.checkSender(senderOf(e));
    if (typeof data !== 'string' || data.length > MAX_INPUT_CHARS) return;
    terminals.get(`${e.sender.id}:${String(id)}`)?.input(data);
  });
  on('terminalResize', (e, id, cols, rows) => {
    handlers.checkSender(senderOf(e));
    if (!isSize(cols) || !isSize(rows)) return;
    terminals.get(`${e.sender.id}:${String(id)}`)?.resize(cols, rows);
  });
  on('terminalClose', (e, id) => {
    handlers.checkSender(senderOf(e));
    const key = `${e.sender.id}:${String(id)}`;
    terminals.get(key)?.close();
    terminals.delete(key);
  });
  on('unsubscribe', (e, id) => {
    const key = `${e.sender.id}:${String(id)}`;
    subs.get(key)?.();
    subs.delete(key);
  });
}
