// A shell in the service's live container (xterm.js): the transport's terminal (a same-origin
// WebSocket in the browser, relayed by the main process in the desktop app) carries raw frames
// both ways and a resize on every fit. It connects when the tab opens; when it ends the reason is
// shown (idle timeout, too many terminals, the service not running, the shell exited) with
// Reconnect.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Service } from '../../../../../shared/types.js';
import { useTransport } from '../../api/context';
import type { TerminalConnection } from '../../transport/transport';
import { Button } from '../../ui/kit';
import './ops.css';

type Link = { state: 'connecting' } | { state: 'open' } | { state: 'closed'; code: number; reason: string };

/** Why a terminal ended, for a person: the daemon's reason when it gave one. */
function closeReason(code: number, reason: string): string {
  if (reason) return reason;
  if (code === 1000) return 'the session ended (the shell exited)';
  if (code === 1006) return 'the connection to the server dropped';
  if (code === 1001) return 'the server is going away (restarting)';
  return `the connection closed (code ${code})`;
}

export default function TerminalTab({ service }: { service: Service }) {
  const t = useTransport();
  const box = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fit = useRef<FitAddon | null>(null);
  const conn = useRef<TerminalConnection | null>(null);
  const [link, setLink] = useState<Link>({ state: 'connecting' });

  const connect = useCallback(() => {
    const x = term.current;
    if (!x) return;
    conn.current?.close();
    x.reset();
    setLink({ state: 'connecting' });
    let c: TerminalConnection | null = null;
    c = t.openTerminal(service.id, (e) => {
      if (conn.current !== c) return; // a connection replaced by a reconnect
      if (e.type === 'open') {
        setLink({ state: 'open' });
        c?.resize(x.cols, x.rows);
        x.focus();
      } else if (e.type === 'output') {
        x.write(e.data);
      } else {
        setLink({ state: 'closed', code: e.code, reason: e.reason });
      }
    });
    conn.current = c;
  }, [t, service.id]);

  useEffect(() => {
    const x = new Terminal({
      cursorBlink: true,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      fontSize: 13,
      scrollback: 5000,
      theme: { background: '#18181b', foreground: '#e4e4e7' },
    });
    const f = new FitAddon();
    x.loadAddon(f);
    x.open(box.current!);
    f.fit();
    term.current = x;
    fit.current = f;
    const input = x.onData((d) => conn.current?.input(d));
    const resized = x.onResize(({ cols, rows }) => conn.current?.resize(cols, rows));
    const observer = new ResizeObserver(() => {
      try {
        f.fit();
      } catch {
        // hidden: nothing to fit
      }
    });
    observer.observe(box.current!);
    connect();
    return () => {
      observer.disconnect();
      input.dispose();
      resized.dispose();
      conn.current?.close();
      conn.current = null;
      x.dispose();
      term.current = null;
    };
  }, [connect]);

  return (
    <div className="stack-tight">
      <div className="terminal-bar">
        <p role="status" className={link.state === 'closed' ? 'tone-bad-text' : link.state === 'open' ? 'tone-ok-text' : 'muted'}>
          {link.state === 'connecting' ? `Connecting to ${service.name}…` : null}
          {link.state === 'open' ? `Connected to ${service.name} (a shell in ${service.replicas > 1 ? 'one of its running replicas' : 'its live container'})` : null}
          {link.state === 'closed' ? `Disconnected: ${closeReason(link.code, link.reason)}` : null}
        </p>
        {link.state === 'closed' ? (
          <Button variant="primary" onClick={connect}>
            Reconnect
          </Button>
        ) : (
          <span className="muted small">Ctrl-D or exit ends the session; every session is recorded under Commands.</span>
        )}
      </div>
      <div className="terminal-box" ref={box} aria-label={`Terminal of ${service.name}`} role="region" />
    </div>
  );
}
