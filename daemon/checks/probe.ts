// One HTTP(S) request of an uptime check, to an address this daemon chooses (Berth's own Caddy, or
// the service's host port on 127.0.0.1), never one a user typed: the hostname only travels as the
// Host header and SNI, so a tenant's DNS cannot point the daemon anywhere. Redirects are not
// followed (a 3xx is the answer), the body is read up to 64 KB for the keyword and then the socket
// is dropped, and the whole request is bounded by the check's timeout: an app that hangs or floods
// costs at most that.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { BODY_CAP_BYTES, daysLeft } from '../core/check-states.js';
import type { ProbeOutcome } from '../core/ports/checks.js';

export interface ProbeRequest {
  /** Where to connect: Caddy's listen address, or 127.0.0.1 and the host port. */
  address: string;
  port: number;
  /** The Host header (and SNI over TLS). */
  host: string;
  /** TLS with SNI = host; `verify`: the certificate must chain to a trusted root (ACME mode). */
  tls: { verify: boolean } | null;
  path: string;
  timeoutMs: number;
  keyword: string | null;
  now: () => Date;
}

export function probe(p: ProbeRequest): Promise<ProbeOutcome> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  return new Promise((resolve) => {
    let settled = false;
    let certificateDaysLeft: number | null = null;
    const done = (o: Omit<ProbeOutcome, 'certificateDaysLeft'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...o, certificateDaysLeft });
    };
    const options = {
      host: p.address,
      port: p.port,
      path: p.path,
      method: 'GET',
      agent: false as const,
      headers: { host: p.host, 'user-agent': 'Berth-Uptime-Check', accept: '*/*', connection: 'close' },
    };
    const onResponse = (res: IncomingMessage) => {
      if (p.tls) {
        const cert = (res.socket as TLSSocket).getPeerCertificate?.();
        if (cert?.valid_to) certificateDaysLeft = daysLeft(new Date(cert.valid_to), p.now());
      }
      const status = res.statusCode ?? null;
      if (p.keyword === null) {
        done({ status, responseMs: elapsed(), error: null, keywordFound: null });
        return;
      }
      const keyword = Buffer.from(p.keyword, 'utf8');
      let body = Buffer.alloc(0);
      const finish = () => done({ status, responseMs: elapsed(), error: null, keywordFound: body.subarray(0, BODY_CAP_BYTES).includes(keyword) });
      res.on('data', (chunk: Buffer) => {
        body = Buffer.concat([body, chunk]);
        if (body.length >= BODY_CAP_BYTES) finish();
      });
      res.on('end', finish);
      res.on('error', finish);
    };
    const req = p.tls ? httpsRequest({ ...options, servername: p.host, rejectUnauthorized: p.tls.verify }, onResponse) : httpRequest(options, onResponse);
    req.on('error', (err: NodeJS.ErrnoException) => done({ status: null, responseMs: null, error: describe(err), keywordFound: null }));
    const timer = setTimeout(() => done({ status: null, responseMs: null, error: `no answer within ${Math.round(p.timeoutMs / 1000)} s`, keywordFound: null }), p.timeoutMs);
    req.end();
  });
}

function describe(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ECONNRESET') return 'connection reset';
  if (err.code?.startsWith('ERR_TLS') || /certificate/i.test(err.message)) return `TLS: ${err.message}`;
  return err.message.slice(0, 200);
}
