// Entry: picks the transport (the desktop bridge when the Electron preload provides one, else the
// browser's same-origin fetch) and mounts the app.
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { BridgeTransport, type ServerChoice } from './transport/bridge';
import type { Transport } from './transport/transport';
import { WebTransport } from './transport/web';
import './styles.css';

async function pickTransport(): Promise<{ transport: Transport; servers: ServerChoice | null }> {
  const bridge = window.berth;
  if (!bridge) return { transport: new WebTransport(), servers: null };
  const servers = (await bridge.servers?.()) ?? [];
  const wanted = new URLSearchParams(location.hash.slice(1)).get('server');
  const current = servers.find((s) => s.id === wanted)?.id ?? servers[0]?.id ?? 'default';
  return { transport: new BridgeTransport(bridge, current), servers: { servers, current } };
}

void pickTransport().then(({ transport, servers }) => {
  createRoot(document.getElementById('root')!).render(<App transport={transport} servers={servers} />);
});
