// Things to put between a client and the daemon: a TCP relay whose connections can be cut at
// will (a dropped stream), and a TLS terminator with a fresh self-signed certificate (a daemon
// behind Caddy's internal CA, as the installer sets it up).
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

export interface TcpRelay {
  url: string;
  /** Destroys every open connection (both sides); new connections still work. */
  cutAll(): number;
  /** Calls fn with each chunk the daemon sends back (to decide when to cut). */
  onDownstream(fn: (chunk: Buffer) => void): void;
  stop(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const watchers: ((chunk: Buffer) => void)[] = [];
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    open.add(client).add(upstream);
    const forget = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      for (const w of watchers) w(chunk);
      if (!client.destroyed) client.write(chunk);
    });
  });
  const p = await listen(server);
  return {
    url: `http://127.0.0.1:${p}`,
    cutAll() {
      const n = open.size;
      for (const s of [...open]) s.destroy();
      return n;
    },
    onDownstream: (fn) => watchers.push(fn),
    stop: () =>
      new Promise((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface TlsFront {
  url: string;
  /** SHA-256 of the certificate's DER, lower-case hex. */
  fingerprint: string;
  stop(): Promise<void>;
}

/** HTTPS on loopback in front of `target` (plain HTTP), with a new self-signed certificate from openssl. */
export async function startTlsFront(target: string): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'berth-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=berth.test',
      '-addext',
      'subjectAltName=DNS:berth.test',
    ],
    { stdio: 'ignore' },
  );
  const key = readFileSync(keyFile);
  const cert = readFileSync(certFile);
  rmSync(dir, { recursive: true, force: true });
  const fingerprint = createHash('sha256').update(new X509Certificate(cert).raw).digest('hex');
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const server = createTlsServer({ key, cert }, (client) => {
    const upstream = connect(Number(port), hostname);
    open.add(client).add(upstream);
    const forget = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
    client.pipe(upstream).pipe(client);
  });
  const p = await listen(server);
  return {
    url: `https://127.0.0.1:${p}`,
    fingerprint,
    stop: () =>
      new Promise((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
