// The host-port proxy against real local servers: per-request switching, draining, upgrades, TCP.
import { expect } from 'chai';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { PortProxy } from '../../daemon/deploy/port-proxy.js';

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  await new Promise((r) => s.close(r));
  return port;
}

describe('host-port proxy', () => {
  const servers: net.Server[] = [];
  const proxies: PortProxy[] = [];
  afterEach(async () => {
    for (const p of proxies.splice(0)) await p.close();
    for (const s of servers.splice(0)) s.close();
  });

  async function app(name: string, delayMs = 0): Promise<number> {
    const s = http.createServer((req, res) => setTimeout(() => res.end(`${name} ${req.url}`), delayMs));
    servers.push(s);
    return listen(s);
  }

  async function proxy(mode: 'http' | 'tcp'): Promise<PortProxy> {
    const p = new PortProxy(await freePort(), '127.0.0.1', mode);
    await p.listen();
    proxies.push(p);
    return p;
  }

  it('answers 503 with no upstream, then forwards to the current one; a keep-alive client follows a switch', async () => {
    const p = await proxy('http');
    const url = `http://127.0.0.1:${p.hostPort}/x`;
    expect((await fetch(url)).status).to.equal(503);
    await p.switchTo(await app('one'));
    expect(await (await fetch(url)).text()).to.equal('one /x');
    await p.switchTo(await app('two'));
    expect(await (await fetch(url)).text()).to.equal('two /x');
  });

  it('a switch resolves only after requests in flight on the old upstream have finished', async () => {
    const p = await proxy('http');
    await p.switchTo(await app('slow', 600));
    const inFlight = fetch(`http://127.0.0.1:${p.hostPort}/`).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await p.switchTo(await app('fast'));
    expect(Date.now() - started).to.be.greaterThan(300);
    expect(await inFlight).to.equal('slow /');
  });

  it('answers 502 when the upstream does not answer', async () => {
    const p = await proxy('http');
    await p.switchTo(await freePort());
    expect((await fetch(`http://127.0.0.1:${p.hostPort}/`)).status).to.equal(502);
  });

  it('passes an upgraded connection through both ways', async () => {
    const upstream = http.createServer();
    upstream.on('upgrade', (_req, socket: net.Socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
      socket.on('data', (d) => socket.write(`echo:${d}`));
    });
    servers.push(upstream);
    const p = await proxy('http');
    await p.switchTo(await listen(upstream));
    const reply = await new Promise<string>((resolve, reject) => {
      const c = net.connect(p.hostPort, '127.0.0.1', () => c.write('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n'));
      let buf = '';
      c.on('data', (d) => {
        buf += d;
        if (buf.includes('\r\n\r\n') && !buf.includes('echo:')) c.write('ping');
        if (buf.includes('echo:ping')) {
          c.destroy();
          resolve(buf);
        }
      });
      c.on('error', reject);
    });
    expect(reply).to.match(/^HTTP\/1.1 101/);
  });

  it('forwards raw TCP in tcp mode', async () => {
    const echo = net.createServer((s) => s.pipe(s));
    servers.push(echo);
    const p = await proxy('tcp');
    await p.switchTo(await listen(echo));
    const got = await new Promise<string>((resolve) => {
      const c = net.connect(p.hostPort, '127.0.0.1', () => c.write('hello'));
      c.on('data', (d) => {
        c.destroy();
        resolve(String(d));
      });
    });
    expect(got).to.equal('hello');
  });
});
