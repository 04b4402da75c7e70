// The terminal's WebSocket (GET /api/services/:serviceId/terminal with Upgrade: websocket).
// The HTTP server's `upgrade` event hands the request to the Koa app itself, with a response
// written straight onto the socket: the key check, the console session and its same-origin check,
// 401/403/404 and their bodies are exactly the HTTP API's, answered as plain HTTP before any
// upgrade. The terminal route (routes/exec.ts) accepts the upgrade once core has opened the TTY.
// Frames: binary or text frames are raw input; a text frame holding {"type":"resize","cols","rows"}
// resizes; output goes out as binary frames. An idle timeout, ping/pong, backpressure (the shell's
// output is paused while the client is behind), and the shell ends when the socket closes.
import type Koa from 'koa';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { API_ROUTES } from '../../shared/api-routes.js';
import type { OpenTerminal } from '../core/execs.js';
import type { SseStreams } from './sse-streams.js';

const TERMINAL_ROUTE = API_ROUTES.find((r) => r.id === 'terminal')!;
const TERMINAL_PATH = new RegExp(`^${TERMINAL_ROUTE.path.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
const UPGRADE = Symbol('berth.terminal-upgrade');
const MAX_FRAME_BYTES = 1024 * 1024;
/** Output waiting for a slow client before the shell's output is paused. */
const HIGH_WATER_BYTES = 1024 * 1024;
const PING_MS = 30_000;

interface TerminalGuard {
  /** Terminals count against the key's open streams and end with its revocation or its session's sign-out. */
  streams: SseStreams;
  keyId: string;
  sessionHash: string | null;
  stillAllowed: () => Promise<boolean>;
}

export interface PendingUpgrade {
  accept(opened: OpenTerminal, guard: TerminalGuard): void;
  /** Completes the upgrade only to close the socket at once with `code` and `reason`. */
  upgradeThen(fn: (ws: WebSocket) => void): void;
}

/** The upgrade a request carries, when it came through the server's `upgrade` event. */
export function pendingUpgrade(req: IncomingMessage): PendingUpgrade | undefined {
  return (req as IncomingMessage & { [UPGRADE]?: PendingUpgrade })[UPGRADE];
}

/** Closes an accepted socket at once with a reason (at most 123 bytes, the protocol's limit). */
export function refuseAfterUpgrade(upgrade: PendingUpgrade, code: number, reason: string): void {
  upgrade.upgradeThen((ws) => ws.close(code, clip(reason)));
}

function clip(reason: string): string {
  let out = reason;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -2) + '…';
  return out;
}

export interface TerminalSockets {
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  closeAll(): void;
}

export function terminalSockets(app: Koa, opts: { idleMs: number; log: (message: string, err?: unknown) => void }): TerminalSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false, clientTracking: true });
  const handle = app.callback();
  return {
    onUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0]!;
      if (!TERMINAL_PATH.test(path) || (req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n{"error":{"code":"not_found","message":"no WebSocket here"}}');
        return;
      }
      socket.on('error', () => socket.destroy());
      // Koa answers on a response written onto the raw socket; an answer (401, 403, 404, ...) ends it.
      const res = new ServerResponse(req);
      res.assignSocket(socket as never);
      res.shouldKeepAlive = false;
      res.once('finish', () => socket.end());
      let taken = false;
      const take = (fn: (ws: WebSocket) => void, onLost: () => void) => {
        if (taken) return;
        taken = true;
        res.detachSocket(socket as never);
        let done = false;
        socket.once('close', () => {
          if (!done) onLost();
        });
        wss.handleUpgrade(req, socket, head, (ws) => {
          done = true;
          fn(ws);
        });
      };
      const pending: PendingUpgrade = {
        accept: (opened, guard) =>
          take(
            (ws) => pump(ws, opened, guard, opts),
            () => void opened.session.close(),
          ),
        upgradeThen: (fn) => take(fn, () => undefined),
      };
      (req as IncomingMessage & { [UPGRADE]?: PendingUpgrade })[UPGRADE] = pending;
      void Promise.resolve(handle(req, res)).catch((err: unknown) => {
        opts.log('terminal upgrade', err);
        socket.destroy();
      });
    },
    closeAll() {
      for (const ws of wss.clients) ws.close(1001, 'the daemon is stopping');
    },
  };
}

/** Parses a resize message; null for anything else (which is then raw input). */
function resizeOf(text: string): { cols: number; rows: number } | null {
  if (!text.startsWith('{') || text.length > 200) return null;
  try {
    const m = JSON.parse(text) as { type?: unknown; cols?: unknown; rows?: unknown };
    const ok = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 1000;
    if (m.type === 'resize' && ok(m.cols) && ok(m.rows)) return { cols: m.cols as number, rows: m.rows as number };
  } catch {
    // not JSON: input
  }
  return null;
}

function pump(ws: WebSocket, opened: OpenTerminal, guard: TerminalGuard, opts: { idleMs: number }): void {
  const { session } = opened;
  let closed = false;
  let alive = true;
  let drainTimer: NodeJS.Timeout | null = null;
  const finish = (code: number, reason: string) => {
    if (closed) return;
    closed = true;
    clearTimeout(idle);
    clearInterval(ping);
    if (drainTimer) clearInterval(drainTimer);
    untrack();
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, clip(reason));
    void session.close();
  };
  const untrack = guard.streams.add(guard.keyId, {
    stillAllowed: guard.stillAllowed,
    close: () => finish(4403, 'the key was revoked or can no longer see this service'),
    sessionHash: guard.sessionHash,
  });
  const idleSeconds = Math.round(opts.idleMs / 1000);
  const idleClose = () => finish(4408, `idle timeout: no input for ${idleSeconds} s`);
  let idle = setTimeout(idleClose, opts.idleMs);
  const ping = setInterval(() => {
    if (!alive) return void ws.terminate();
    alive = false;
    ws.ping();
  }, PING_MS);
  ws.on('pong', () => {
    alive = true;
  });

  session.onData((chunk) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(chunk, { binary: true });
    if (ws.bufferedAmount > HIGH_WATER_BYTES && drainTimer === null) {
      session.pause();
      drainTimer = setInterval(() => {
        if (ws.bufferedAmount > HIGH_WATER_BYTES / 4) return;
        clearInterval(drainTimer!);
        drainTimer = null;
        session.resume();
      }, 50);
    }
  });
  session.onEnd((exitCode) => finish(1000, exitCode === null ? 'the shell ended' : `the shell exited with code ${exitCode}`));
  ws.on('message', (data, isBinary) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (!isBinary) {
      const size = resizeOf(buf.toString('utf8'));
      if (size) {
        void session.resize(size.cols, size.rows).catch(() => undefined);
        return;
      }
    }
    clearTimeout(idle);
    idle = setTimeout(idleClose, opts.idleMs);
    session.write(buf);
  });
  ws.on('close', () => finish(1000, 'closed'));
  ws.on('error', () => finish(1011, 'socket error'));
}
