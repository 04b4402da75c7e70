// The preload of the Berth window (sandboxed, context-isolated): exposes `window.berth`, the
// BerthApi of the IPC contract (desktop/ipc/contract.ts): `request`, `subscribe`, `download` and
// the list of servers (names and states only). It holds no key and decides nothing: the main
// process checks every call (desktop/main/bridge-handlers.ts).
// CommonJS (desktop/preload/package.json): a sandboxed preload cannot be an ES module, and it can
// require nothing but `electron`, so the contract is imported type-only and the channel names are
// literals typed as IpcChannels: a name that differs from the contract's fails the build, and
// test/desktop/ipc-contract.test.ts runs this file to check the channels it really uses.
import { contextBridge, ipcRenderer } from 'electron';
import type { BerthApi, IpcChannels, IpcInvokeContract, IpcInvokeName, IpcPushContract, StreamMessage } from '../ipc/contract.js';

const CHANNELS: IpcChannels = {
  request: 'berth:request',
  servers: 'berth:servers',
  subscribe: 'berth:subscribe',
  unsubscribe: 'berth:unsubscribe',
  download: 'berth:download',
  stream: 'berth:stream',
};

function invoke<N extends IpcInvokeName>(name: N, ...args: IpcInvokeContract[N]['args']): Promise<IpcInvokeContract[N]['result']> {
  return ipcRenderer.invoke(CHANNELS[name], ...args) as Promise<IpcInvokeContract[N]['result']>;
}

const subscriptions = new Map<string, (m: StreamMessage) => void>();
let next = 0;

ipcRenderer.on(CHANNELS.stream, (_event, ...[id, message]: IpcPushContract['stream']['args']) => subscriptions.get(id)?.(message));

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
};

contextBridge.exposeInMainWorld('berth', api);
