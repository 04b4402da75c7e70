// A service's terminal for the window: the main process opens the `terminal` WebSocket to the
// daemon with the server's key (the window never holds it) and relays frames both ways. Keystrokes
// go to the daemon as binary frames (so typed text that looks like a resize stays input), a resize
// as the contract's JSON text frame; the daemon's frames come back as they are, then its close code
// and reason (idle timeout, cap reached, service not running). A pinned server is reached over a
// TLS connection whose certificate is checked BEFORE the upgrade request (with the key) is written.
import type { Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import WebSocket from 'ws';
import { certificateFingerprint, FingerprintMismatchError, normalizeFingerprint } from '../../shared/pinned-tls.js';
import type { TerminalResize } from '../../shared/types/exec.js';
import type { TerminalHandle, TerminalMessage } from '../ipc/contract.js';
import { connectionError } from './connection.js';

/** The largest frame relayed either way (a paste, a burst of output): bigger ones close the terminal. */
const MAX_FRAME_BYTES = 1024 * 1024;
const HANDSHAKE_TIMEOUT_MS = 15_000;

export interface TerminalTarget {
  /** The server's base URL (http(s)://host:port). */
  url: string;
  fingerprint?: string | undefined;
  key: string;
  /** The `terminal` route's path, already checked against the allow-list. */
  path: string;
}

/** A TLS connection that is handed on only when the peer's certificate is the pinned one. */
function pinnedSocket(host: string, port: number, fingerprint: string): Promise<TLSSocket> {
  const expected = normalizeFingerprint(fingerprint);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port, servername: /^[\d.]+$|:/.test(host) ? '' : host, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const raw = socket.getPeerCertificate()?.raw;
      const actual = raw ? certificateFingerprint(raw) : 'none';
      if (actual !== expected) {
        socket.destroy();
        reject(new FingerprintMismatchError(expected, actual, host));
        return;
      }
      socket.removeListener('error', reject);
      resolve(socket);
    });
  });
}

/** Opens the relay; `deliver` gets `open`, each output frame, then exactly one `closed`. */
export function openTerminalRelay(target: TerminalTarget, deliver: (m: TerminalMessage) => void): TerminalHandle {
  const base = new URL(target.url);
  const wsUrl = `${base.protocol === 'https:' ? 'wss:' : 'ws:'}//${base.host}${target.path}`;
  let ws: WebSocket | null = null;
  let ended = false;
  const end = (code: number, reason: string) => {
    if (ended) return;
    ended = true;
    deliver({ type: 'closed', code, reason });
  };

  const connect = (socket: Socket | null) => {
    if (ended) {
      socket?.destroy();
      return;
    }
    const sock = new WebSocket(wsUrl, {
      headers: { authorization: `Bearer ${target.key}` },
      perMessageDeflate: false,
      maxPayload: MAX_FRAME_BYTES,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      followRedirects: false,
      ...(socket ? { createConnection: () => socket } : {}),
    });
    ws = sock;
    sock.on('open', () => deliver({ type: 'open' }));
    sock.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      deliver({ type: 'output', data: isBinary ? new Uint8Array(buf) : buf.toString('utf8') });
    });
    // a refused upgrade (403 read key, 404 unknown service, 409 not running): the daemon's message is the reason
    sock.on('unexpected-response', (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 16_384) chunks.push(c);
      });
      res.on('end', () => {
        let reason = `the server answered HTTP ${res.statusCode ?? 0}`;
        try {
          const msg = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { message?: unknown } }).error?.message;
          if (typeof msg === 'string') reason = msg.slice(0, 300);
        } catch {
          // not the API's error body
        }
        end(4000 + (res.statusCode ?? 0), reason);
        req.destroy();
      });
    });
    sock.on('error', (err) => end(1006, connectionError(err)));
    sock.on('close', (code, reason) => end(code, reason.toString('utf8')));
  };

  if (target.fingerprint && base.protocol === 'https:') {
    const port = Number(base.port || 443);
    pinnedSocket(base.hostname.replace(/^\[|\]$/g, ''), port, target.fingerprint).then(connect, (err: unknown) => end(1006, connectionError(err)));
  } else {
    connect(null);
  }

  const send = (data: Buffer | string) => {
    if (ws?.readyState === WebSocket.OPEN) ws.send(data);
  };
  return {
    input(data) {
      send(Buffer.from(data, 'utf8'));
    },
    resize(cols, rows) {
      send(JSON.stringify({ type: 'resize', cols, rows } satisfies TerminalResize));
    },
    close() {
      if (ws && ws.readyState !== WebSocket.CLOSED) ws.close(1000, 'closed by the user');
      end(1000, 'closed by the user');
    },
  };
}
