// The preload of the Berth window (sandboxed, context-isolated): exposes `window.berth` with
// `request` and `subscribe` (and the list of servers, names and states only). It holds no key
// and decides nothing: the main process checks every call (desktop/main/bridge-handlers.ts).
// CommonJS (desktop/preload/package.json): a sandboxed preload cannot be an ES module.
import { contextBridge, ipcRenderer } from 'electron';

type StreamMessage = { type: 'event'; event: { event: string; data: unknown; id?: string } } | { type: 'state'; state: 'open' | 'reconnecting' | 'closed' };

const subscriptions = new Map<string, (m: StreamMessage) => void>();
let next = 0;

ipcRenderer.on('berth:stream', (_event, id: string, message: StreamMessage) => subscriptions.get(id)?.(message));

contextBridge.exposeInMainWorld('berth', {
  request: (serverId: string, method: string, path: string, body?: unknown) => ipcRenderer.invoke('berth:request', serverId, method, path, body),
  subscribe(serverId: string, stream: string, onEvent: (e: unknown) => void, onState?: (s: string) => void): () => void {
    const id = `s${++next}`;
    subscriptions.set(id, (m) => (m.type === 'event' ? onEvent(m.event) : onState?.(m.state)));
    ipcRenderer.invoke('berth:subscribe', serverId, stream, id).catch(() => onState?.('closed'));
    return () => {
      subscriptions.delete(id);
      void ipcRenderer.invoke('berth:unsubscribe', id);
    };
  },
  servers: () => ipcRenderer.invoke('berth:servers'),
});
