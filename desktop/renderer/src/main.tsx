// Entry: picks the transport (the desktop bridge when the Electron preload provides one, else the
// browser's same-origin fetch) and mounts the app.
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { BridgeTransport, type BerthBridge } from './transport/bridge';
import { DesktopRoot } from './views/servers/server-switcher';
import type { Transport } from './transport/transport';
import { WebTransport } from './transport/web';
import './styles.css';

async function pickTransport(): Promise<Transport> {
  const bridge = window.berth;
  if (!bridge) return new WebTransport();
  const servers = (await bridge.servers?.()) ?? [];
  const wanted = new URLSearchParams(location.hash.slice(1)).get('server');
  return new BridgeTransport(bridge, servers.find((s) => s.id === wanted)?.id ?? servers[0]?.id ?? 'default');
}

const bridge = window.berth;
const root = createRoot(document.getElementById('root')!);
if (bridge?.servers) {
  // the desktop app: a switcher over every server the main process holds
  const wanted = new URLSearchParams(location.hash.slice(1)).get('server');
  root.render(<DesktopRoot bridge={bridge as BerthBridge & { servers(): Promise<unknown[]> }} initial={wanted} />);
} else {
  void pickTransport().then((transport) => root.render(<App transport={transport} />));
}
