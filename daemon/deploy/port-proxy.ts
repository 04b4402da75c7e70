// Each service's host port is served by the daemon and forwarded to the live container, which
// Docker publishes on an ephemeral loopback port. Two containers can never bind one host port,
// so this is what makes a swap atomic: the upstream changes between two requests, in-flight
// requests finish on the old container, and only then is it stopped.
// Web services get an HTTP-aware proxy (each request goes to the current upstream, keep-alive
// clients included); other ports get a plain TCP forwarder.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';

export type ProxyMode = 'http' | 'tcp';

const DRAIN_GRACE_MS = 30_000;

interface UpstreamState {
  port: number;
  inFlight: number;
  agent: http.Agent;
  idle: (() => void)[];
}

export class PortProxy {
  private server: http.Server | net.Server;
  private current: UpstreamState | null = null;
  private sockets = new Set<Socket>();

  constructor(
    readonly hostPort: number,
    readonly bindHost: string,
    readonly mode: ProxyMode,
  ) {
    this.server = mode === 'http' ? this.httpServer() : net.createServer((client) => this.forwardTcp(client));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.once('error', onError);
      this.server.listen(this.hostPort, this.bindHost, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
  }

  get upstreamPort(): number | null {
    return this.current?.port ?? null;
  }

  /** Points new requests at `port` and resolves once the previous upstream has drained. */
  switchTo(port: number | null): Promise<void> {
    const previous = this.current;
    this.current = port === null ? null : { port, inFlight: 0, agent: new http.Agent({ keepAlive: true, maxSockets: 256 }), idle: [] };
    if (!previous) return Promise.resolve();
    return this.drain(previous);
  }

  private drain(up: UpstreamState): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        up.agent.destroy();
        resolve();
      };
      const timer = setTimeout(done, DRAIN_GRACE_MS);
      timer.unref();
      if (up.inFlight === 0) done();
      else up.idle.push(done);
    });
  }

  private begin(up: UpstreamState): () => void {
    up.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      up.inFlight--;
      if (up.inFlight === 0 && up !== this.current) for (const cb of up.idle.splice(0)) cb();
    };
  }

  private httpServer(): http.Server {
    const server = http.createServer((req, res) => this.forwardHttp(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.forwardUpgrade(req, socket, head));
    server.keepAliveTimeout = 65_000;
    return server;
  }

  private forwardHttp(req: IncomingMessage, res: ServerResponse): void {
    const up = this.current;
    if (!up) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('no running deployment for this service\n');
      return;
    }
    const end = this.begin(up);
    const headers = { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '', 'x-forwarded-host': req.headers.host ?? '' };
    // Lenient with apps' responses (LF-only header lines are common from CGI and small servers);
    // requests from clients are still parsed strictly by the server side.
    const upstream = http.request({ host: '127.0.0.1', port: up.port, method: req.method, path: req.url, headers, agent: up.agent, insecureHTTPParser: true }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
      upRes.once('end', end);
      upRes.once('error', end);
    });
    upstream.once('error', () => {
      end();
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('the service did not answer\n');
      else res.destroy();
    });
    res.once('close', end);
    req.pipe(upstream);
  }

  private forwardUpgrade(req: IncomingMessage, client: Socket, head: Buffer): void {
    this.splice(client, (upstream) => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(lines.join('\r\n') + '\r\n\r\n');
      if (head.length) upstream.write(head);
    });
  }

  private forwardTcp(client: Socket): void {
    this.splice(client, () => undefined);
  }

  /** Joins a client socket to a new connection to the current upstream, both ways, until either closes. */
  private splice(client: Socket, onConnect: (upstream: Socket) => void): void {
    const up = this.current;
    if (!up) return void client.destroy();
    const end = this.begin(up);
    const upstream = net.connect(up.port, '127.0.0.1', () => {
      onConnect(upstream);
      upstream.pipe(client).pipe(upstream);
    });
    const close = () => {
      end();
      client.destroy();
      upstream.destroy();
    };
    upstream.once('error', close).once('close', close);
    client.once('error', close).once('close', close);
  }

  async close(): Promise<void> {
    this.current?.agent.destroy();
    this.current = null;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
  }
}

/** The proxies of all services, by service id. */
export class PortProxies {
  private proxies = new Map<string, PortProxy>();

  /** The proxy for a service, (re)created when its port, bind address or mode changed. */
  async ensure(serviceId: string, hostPort: number, bindHost: string, mode: ProxyMode): Promise<PortProxy> {
    const existing = this.proxies.get(serviceId);
    if (existing && existing.hostPort === hostPort && existing.bindHost === bindHost && existing.mode === mode) return existing;
    if (existing) await this.remove(serviceId);
    const proxy = new PortProxy(hostPort, bindHost, mode);
    try {
      await proxy.listen();
    } catch (err) {
      throw new Error(`host port ${hostPort} is in use by another program: ${(err as Error).message}`);
    }
    this.proxies.set(serviceId, proxy);
    return proxy;
  }

  get(serviceId: string): PortProxy | undefined {
    return this.proxies.get(serviceId);
  }

  async remove(serviceId: string): Promise<void> {
    const proxy = this.proxies.get(serviceId);
    this.proxies.delete(serviceId);
    await proxy?.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.proxies.keys()].map((id) => this.remove(id)));
  }
}
