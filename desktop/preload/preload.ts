// The preload of the Berth window (sandboxed, context-isolated): exposes `window.berth`, the
// BerthApi of the IPC contract (desktop/ipc/contract.ts): `request`, `subscribe`, `download` and
// the list of servers (names and states only). It holds no key and decides nothing: the main
// process checks every call (desktop/main/bridge-handlers.ts).
// CommonJS (desktop/preload/package.json): a sandboxed preload cannot be an ES module, and it can
// require nothing but `electron`, so the contract is imported type-only and the channel names are
// literals typed as IpcChannels: a name that differs from the contract's fails the build, and
// test/desktop/ipc-contract.test.ts runs this file to check the channels it really uses.
import { contextBridge, ipcRenderer } from 'electron';
import type { BerthApi, IpcChannels, IpcInvokeContract, IpcInvokeName, IpcPushContract, StreamMessage, TerminalMessage } from '../ipc/contract.js';

const CHANNELS: IpcChannels = {
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
};

function invoke<N extends IpcInvokeName>(name: N, ...args: IpcInvokeContract[N]['args']): Promise<IpcInvokeContract[N]['result']> {
  return ipcRenderer.invoke(CHANNELS[name], ...args) as Promise<IpcInvokeContract[N]['result']>;
}

const subscriptions = new Map<string, (m: StreamMessage) => void>();
let next = 0;

const terminals = new Map<string, (m: TerminalMessage) => void>();

ipcRenderer.on(CHANNELS.stream, (_event, ...[id, message]: IpcPushContract['stream']['args']) => subscriptions.get(id)?.(message));
ipcRenderer.on(CHANNELS.terminal, (_event, ...[id, message]: IpcPushContract['terminal']['args']) => {
  terminals.get(id)?.(message);
  if (message.type === 'closed') terminals.delete(id);
});

const api: BerthApi = {
  request: (serverId, method, path, body) => invoke('request', serverId, method, path, body),
  subscribe(serverId, stream, onEvent, onState) {
    const id = `s${++next}`;
    subscriptions.set(id, (m) => (m.type === 'event' ? onEvent(m.event) : onState?.(m.state)));
    invoke('subscribe', serverId, stream, id).catch(() => onState?.('closed'));
    return () => {
      subscriptions.delete(id);
      void invoke('unsubscribe', id);
    };
  },
  download: (serverId, path, suggestedName) => invoke('download', serverId, path, suggestedName),
  servers: () => invoke('servers'),
  postStream(serverId, path, body, onEvent, onState) {
    const id = `s${++next}`;
    subscriptions.set(id, (m) => (m.type === 'event' ? onEvent(m.event) : onState?.(m.state)));
    invoke('postStream', serverId, path, body, id).catch(() => onState?.('closed'));
    return () => {
      subscriptions.delete(id);
      void invoke('unsubscribe', id);
    };
  },
  openTerminal(serverId, path, onMessage) {
    const id = `t${++next}`;
    terminals.set(id, onMessage);
    invoke('terminalOpen', serverId, path, id).catch((err: unknown) => {
      terminals.delete(id);
      onMessage({ type: 'closed', code: 1008, reason: err instanceof Error ? err.message : String(err) });
    });
    return {
      input: (data) => void invoke('terminalInput', id, data).catch(() => undefined),
      resize: (cols, rows) => void invoke('terminalResize', id, cols, rows).catch(() => undefined),
      close() {
        terminals.delete(id);
        void invoke('terminalClose', id).catch(() => undefined);
      },
    };
  },
};

contextBridge.exposeInMainWorld('berth', api);
