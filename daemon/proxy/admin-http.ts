// Requests to Caddy's admin API over node:http. Not the global fetch: its first use loads Node's
// bundled undici with its WebAssembly HTTP parser, about 17 MB that would stay resident for the
// daemon's life only to talk to a local admin endpoint every few seconds.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface AdminAnswer {
  status: number;
  statusText: string;
  text: string;
}

/** The error a request that got no answer within `timeoutMs` rejects with (name `TimeoutError`). */
function timeoutError(): Error {
  const err = new Error('no answer in time');
  err.name = 'TimeoutError';
  return err;
}

/** One request; resolves with the whole answer (any status), rejects when there is none. */
export function adminRequest(url: string, method: 'GET' | 'POST', timeoutMs: number, body?: string): Promise<AdminAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string | number> = {};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    // a connection per request: Caddy closes admin connections after a /load, and a kept-alive
    // socket closed under a later request would fail it
    const req = send(target, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    const timer = setTimeout(() => req.destroy(timeoutError()), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}
