// Desktop only: the servers the app holds (from the main process, names and states, never keys),
// a switcher between them, and an all-servers overview of failed or building services. Each
// server gets its own console (its own transport and query cache), remounted on switching.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { App } from '../../app';
import { BridgeTransport, type BerthBridge } from '../../transport/bridge';
import { ManageServers, type ServersAnswer } from './manage-servers';

export interface ServerSummary {
  id: string;
  name: string;
  url: string;
  colour: string;
  state: 'none' | 'ok' | 'building' | 'failed' | 'offline';
  connection: { status: 'connecting' | 'online' | 'offline'; since?: number; error?: string };
  failed: string[];
  building: string[];
}

function stateText(s: ServerSummary): string {
  if (s.connection.status === 'offline') return `offline since ${new Date(s.connection.since ?? Date.now()).toLocaleTimeString()}`;
  if (s.connection.status === 'connecting') return 'connecting';
  if (s.failed.length) return `${s.failed.length} failed`;
  if (s.building.length) return `${s.building.length} building`;
  return 'all good';
}

function ServerButton({ s, current, onPick }: { s: ServerSummary; current: boolean; onPick(id: string): void }) {
  return (
    <button type="button" className={`server-tab state-${s.state}`} aria-current={current ? 'true' : undefined} onClick={() => onPick(s.id)}>
      <span className="server-colour" aria-hidden="true" style={{ background: s.colour }} />
      <span className="server-name">{s.name}</span>
      <span className="server-state">{stateText(s)}</span>
    </button>
  );
}

function Overview({ servers, onPick }: { servers: ServerSummary[]; onPick(id: string): void }) {
  return (
    <section className="servers-overview" aria-labelledby="servers-overview-title">
      <h1 id="servers-overview-title">All servers</h1>
      <ul>
        {servers.map((s) => (
          <li key={s.id}>
            <span className="server-colour" aria-hidden="true" style={{ background: s.colour }} />
            <strong>{s.name}</strong> <span>{stateText(s)}</span>
            {s.failed.length || s.building.length ? (
              <span>
                {' '}
                · services: {s.failed.length} failed, {s.building.length} building
              </span>
            ) : null}{' '}
            {/* why it is offline, in the main process's words (a changed certificate says how to re-pin) */}
            {s.connection.status === 'offline' && s.connection.error ? <p className="server-error">{s.connection.error}</p> : null}
            <button type="button" className="btn" onClick={() => onPick(s.id)}>
              Open {s.name}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function DesktopRoot({ bridge, initial }: { bridge: BerthBridge & { servers(): Promise<unknown[]> }; initial: string | null }) {
  const [answer, setAnswer] = useState<ServersAnswer | null>(null);
  const servers = answer?.servers ?? null;
  const [current, setCurrent] = useState<string | null>(initial);
  const [view, setView] = useState<'server' | 'overview' | 'manage'>('server');
  const overview = view === 'overview';
  const refresh = useCallback(() => void bridge.request('app', 'GET', '/desktop/servers').then((r) => setAnswer(r.body as ServersAnswer)), [bridge]);
  useEffect(() => {
    refresh();
    window.addEventListener('focus', refresh);
    return () => window.removeEventListener('focus', refresh);
  }, [refresh]);
  // live: every server's event stream (the main process's one stream each) refreshes the states
  const serverIds = servers?.map((s) => s.id).join(',') ?? '';
  useEffect(() => {
    if (!serverIds) return;
    let timer: number | undefined;
    const soon = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(refresh, 150);
    };
    const stops = serverIds
      .split(',')
      .map((id) => bridge.subscribe(id, '/api/events', (e) => (e.event === 'service' || e.event === 'deployment' || e.event === 'backup' || e.event === 'reset' ? soon() : undefined), soon));
    return () => {
      window.clearTimeout(timer);
      stops.forEach((stop) => stop());
    };
  }, [bridge, serverIds, refresh]);
  const pick = (id: string) => {
    setView('server');
    setCurrent(id);
    history.pushState(null, '', `/#server=${encodeURIComponent(id)}`);
    refresh();
  };
  const active = servers?.find((s) => s.id === current) ?? servers?.[0];
  // keyed by the id: a refetched server list gives new objects for the same server
  const activeId = active?.id;
  const transport = useMemo(() => (activeId ? new BridgeTransport(bridge, activeId) : null), [bridge, activeId]);
  if (!servers) return null;
  return (
    <div className="desktop-root">
      <nav className="server-bar" aria-label="Servers">
        {servers.map((s) => (
          <ServerButton key={s.id} s={s} current={view === 'server' && s.id === active?.id} onPick={pick} />
        ))}
        <button type="button" className="server-tab" aria-current={overview ? 'true' : undefined} onClick={() => (setView('overview'), refresh())}>
          All servers
        </button>
        <button type="button" className="server-tab" aria-current={view === 'manage' ? 'true' : undefined} onClick={() => (setView('manage'), refresh())}>
          Manage servers
        </button>
      </nav>
      {view === 'manage' || servers.length === 0 ? (
        <ManageServers bridge={bridge} answer={answer!} onChange={refresh} />
      ) : overview ? (
        <Overview servers={servers} onPick={pick} />
      ) : transport ? (
        <App key={transport.serverId} transport={transport} />
      ) : null}
    </div>
  );
}
