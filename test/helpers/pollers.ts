// Pollers for the data-plane tests: every 50 ms, one request on a fresh connection (HTTP through
// Caddy, or a database's wire protocol on its host port), recording each answer or failure.
import { type ClientRequest, request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';

export type Probe = () => Promise<{ ok: true; text: string } | { ok: false; error: string }>;

type Outcome = Awaited<ReturnType<Probe>>;

/** Sends `req` and resolves with its outcome: 200 and the body, or what went wrong. */
function settle(req: ClientRequest, resolve: (r: Outcome) => void): void {
  req.on('response', (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.on('end', () => resolve(res.statusCode === 200 ? { ok: true, text: text.trim() } : { ok: false, error: `HTTP ${res.statusCode}: ${text.trim()}` }));
    res.on('error', (err) => resolve({ ok: false, error: err.message }));
  });
  req.on('timeout', () => req.destroy(new Error('timed out')));
  req.on('error', (err) => resolve({ ok: false, error: err.message }));
  req.end();
}

/** GET / on 127.0.0.1:<port> with an optional Host header; any status other than 200 is a failure. */
export function httpProbe(port: number, host?: string): Probe {
  return () =>
    new Promise((resolve) => {
      settle(request({ host: '127.0.0.1', port, path: '/', headers: host ? { host } : {}, agent: false, timeout: 5000 }), resolve);
    });
}

/**
 * GET / over HTTPS to `address:port` for the domain `servername` (SNI and Host), as a browser
 * reaches an app on a server's domain; the certificate is not checked (Caddy's internal CA).
 */
export function httpsProbe(address: string, port: number, servername: string): Probe {
  return () =>
    new Promise((resolve) => {
      settle(httpsRequest({ host: address, port, servername, path: '/', headers: { host: servername }, agent: false, timeout: 5000, rejectUnauthorized: false }), resolve);
    });
}

/** A Redis PING on a new connection: any RESP reply (+PONG, or -NOAUTH without a password) means the server answered. */
export function redisProbe(port: number): Probe {
  return () =>
    new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let reply = '';
      const done = (r: { ok: true; text: string } | { ok: false; error: string }) => {
        socket.destroy();
        resolve(r);
      };
      socket.setTimeout(5000, () => done({ ok: false, error: 'timed out' }));
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (d: Buffer) => {
        reply += d.toString('utf8');
        if (reply.includes('\r\n')) done(/^[+-]/.test(reply) ? { ok: true, text: reply.trim() } : { ok: false, error: `odd reply ${JSON.stringify(reply)}` });
      });
      socket.on('error', (err) => done({ ok: false, error: err.message }));
      socket.on('close', () => done({ ok: false, error: `closed after ${JSON.stringify(reply)}` }));
    });
}

export class Poller {
  readonly answers: string[] = [];
  readonly failures: string[] = [];
  private running = true;
  private loop: Promise<void>;

  constructor(
    readonly name: string,
    probe: Probe,
    everyMs = 50,
  ) {
    this.loop = (async () => {
      while (this.running) {
        const started = Date.now();
        const r = await probe();
        if (r.ok) this.answers.push(r.text);
        else this.failures.push(`${new Date(started).toISOString()} ${r.error}`);
        await new Promise((res) => setTimeout(res, everyMs));
      }
    })();
  }

  async stop(): Promise<this> {
    this.running = false;
    await this.loop;
    return this;
  }
}

/** Starts one poller per probe; `stop()` ends them all and returns them. */
export function pollAll(probes: Record<string, Probe>): { stop(): Promise<Poller[]> } {
  const pollers = Object.entries(probes).map(([name, p]) => new Poller(name, p));
  return { stop: () => Promise.all(pollers.map((p) => p.stop())) };
}
