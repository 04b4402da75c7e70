// The terminal's WebSocket from Node (the CLI, the desktop main process): `Authorization: Bearer`
// like every API call, and for a daemon behind a self-signed certificate the same pinning as
// pinned-tls.ts: the TLS connection is made and its certificate compared BEFORE the upgrade request
// (and its key) is written. Frames: output arrives as binary frames; input goes out as binary
// frames; a resize is the text frame {"type":"resize","cols","rows"}.
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import WebSocket from 'ws';
import { routePath } from './api-routes.js';
import { ApiError } from './client/base.js';
import { certificateFingerprint, FingerprintMismatchError, normalizeFingerprint } from './pinned-tls.js';
import type { TerminalResize } from './types.js';

export interface TerminalSocketOptions {
  /** The daemon's base URL (http(s)://host:port). */
  baseUrl: string;
  token: string;
  serviceId: string;
  /** SHA-256 of the daemon's certificate, for a self-signed one (BERTH_CERT_SHA256). */
  fingerprint?: string | null;
  cols?: number;
  rows?: number;
}

export interface TerminalSocket {
  onData(fn: (chunk: Buffer) => void): void;
  /** Once, when the socket closed: the code and reason the daemon gave (1000 when the shell exited). */
  onClose(fn: (code: number, reason: string) => void): void;
  write(input: Buffer | string): void;
  resize(cols: number, rows: number): void;
  close(): void;
}

async function pinnedSocket(url: URL, fingerprint: string): Promise<TLSSocket> {
  const expected = normalizeFingerprint(fingerprint);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const socket = tlsConnect({ host, port: Number(url.port || 443), servername: /^[\d.:]+$/.test(host) ? undefined : host, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  const raw = socket.getPeerCertificate()?.raw;
  const actual = raw ? certificateFingerprint(raw) : 'none';
  if (actual !== expected) {
    socket.destroy();
    throw new FingerprintMismatchError(expected, actual, host);
  }
  return socket;
}

/** Opens the terminal; rejects with ApiError when the daemon answers the upgrade with an HTTP error (401, 403, 404). */
export async function openTerminalSocket(opts: TerminalSocketOptions): Promise<TerminalSocket> {
  const base = new URL(opts.baseUrl);
  const query: Record<string, string> = {};
  if (opts.cols) query.cols = String(opts.cols);
  if (opts.rows) query.rows = String(opts.rows);
  const url = new URL(routePath('terminal', { serviceId: opts.serviceId }, query), base);
  url.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  const pinned = base.protocol === 'https:' && opts.fingerprint ? await pinnedSocket(base, opts.fingerprint) : null;
  const ws = new WebSocket(url, {
    headers: { authorization: `Bearer ${opts.token}` },
    perMessageDeflate: false,
    maxPayload: 4 * 1024 * 1024,
    ...(pinned ? { createConnection: () => pinned } : {}),
  });
  const early: Buffer[] = [];
  let dataFn: ((chunk: Buffer) => void) | null = null;
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    if (dataFn) dataFn(buf);
    else early.push(buf);
  });
  let closeInfo: { code: number; reason: string } | null = null;
  const closeFns: ((code: number, reason: string) => void)[] = [];
  ws.on('close', (code, reason) => {
    closeInfo = { code, reason: reason.toString() };
    for (const fn of closeFns.splice(0)) fn(closeInfo.code, closeInfo.reason);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.length < 64 && chunks.push(c));
      res.on('end', () => {
        let code = 'http_error';
        let message = `HTTP ${res.statusCode}`;
        try {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: { code: string; message: string } };
          code = parsed.error.code;
          message = parsed.error.message;
        } catch {
          // not a JSON error body
        }
        reject(new ApiError(res.statusCode ?? 0, code, message));
        ws.terminate();
      });
    });
  });
  return {
    onData(fn) {
      dataFn = fn;
      for (const b of early.splice(0)) fn(b);
    },
    onClose(fn) {
      if (closeInfo) fn(closeInfo.code, closeInfo.reason);
      else closeFns.push(fn);
    },
    write(input) {
      if (ws.readyState === WebSocket.OPEN) ws.send(typeof input === 'string' ? Buffer.from(input) : input, { binary: true });
    },
    resize(cols, rows) {
      const msg: TerminalResize = { type: 'resize', cols, rows };
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg), { binary: false });
    },
    close() {
      ws.close(1000, 'closed by the client');
    },
  };
}
