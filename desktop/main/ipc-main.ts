// The main process's side of the IPC contract (desktop/ipc/contract.ts): registers a handler for
// every invoke channel on Electron's ipcMain (injected: tests pass a stand-in), turns the
// Electron event into the IpcSender the bridge handlers check, and pushes each subscription's
// messages back on the `stream` channel to the window that subscribed.
import { IPC_CHANNELS, type IpcInvokeContract, type IpcInvokeName, type IpcPushContract } from '../ipc/contract.js';
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

export function registerIpcHandlers(ipcMain: IpcMainLike, handlers: BridgeHandlers): void {
  const subs = new Map<string, () => void>();
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
  on('unsubscribe', (e, id) => {
    const key = `${e.sender.id}:${String(id)}`;
    subs.get(key)?.();
    subs.delete(key);
  });
}
