// Hostname routing as daemon/proxy/caddy-config.ts builds it, loaded into a real Caddy: each
// hostname's route only names its upstream and a single reverse proxy dials it, so the number of
// proxies Caddy provisions per /load does not grow with the hostnames (about 5 s at 10,000
// hostnames with one each). The answers stay what they were: the live upstream for its hostname in
// any letter case, 503 for a hostname with nothing live, 404 for one nobody routes.
import { expect } from 'chai';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { caddyConfig, type ProxyRoute } from '../../daemon/proxy/caddy-config.js';
import { TestCaddy } from '../helpers/caddy.js';

function get(port: number, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

function countHandlers(node: unknown, handler: string): number {
  if (Array.isArray(node)) return node.reduce((n: number, x) => n + countHandlers(x, handler), 0);
  if (node === null || typeof node !== 'object') return 0;
  const own = (node as { handler?: unknown }).handler === handler ? 1 : 0;
  return own + Object.values(node).reduce((n: number, x) => n + countHandlers(x, handler), 0);
}

describe('hostname routes in Caddy', function () {
  this.timeout(60_000);
  let caddy: TestCaddy;
  let app: Server;
  let appPort: number;

  before(async () => {
    app = createServer((req, res) => res.end(`app saw ${req.headers['x-forwarded-host']}\n`));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appPort = (app.address() as AddressInfo).port;
    caddy = await TestCaddy.create();
    await caddy.start({ resume: false });
  });

  after(async () => {
    await caddy?.dispose();
    await new Promise((r) => app?.close(r));
  });

  const config = (routes: ProxyRoute[]) =>
    caddyConfig({
      routes,
      hostPorts: [],
      httpsMode: 'http',
      acmeEmail: null,
      httpAddr: `127.0.0.1:${caddy.httpPort}`,
      httpsAddr: `127.0.0.1:${caddy.httpsPort}`,
      adminListen: `127.0.0.1:${caddy.adminPort}`,
    });

  it('provisions one reverse proxy whatever the number of hostnames', () => {
    const routes = (n: number) => Array.from({ length: n }, (_, i) => ({ hostname: `h${i}.example.test`, upstream: `127.0.0.1:${20000 + i}` }));
    expect(countHandlers(config(routes(3)), 'reverse_proxy')).to.equal(1);
    expect(countHandlers(config(routes(500)), 'reverse_proxy')).to.equal(1);
  });

  it('answers from the live upstream (any letter case), 503 with nothing live, 404 for an unrouted hostname', async () => {
    const routes: ProxyRoute[] = [
      { hostname: 'live.example.test', upstream: `127.0.0.1:${appPort}`, serviceId: 's1' },
      { hostname: 'idle.example.test', upstream: null, serviceId: 's2' },
      ...Array.from({ length: 200 }, (_, i) => ({ hostname: `other-${i}.example.test`, upstream: `127.0.0.1:${appPort}`, serviceId: `o${i}` })),
    ];
    const res = await fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify(config(routes)) });
    expect(res.status, await res.text()).to.equal(200);

    expect(await get(caddy.httpPort, 'live.example.test')).to.deep.equal({ status: 200, text: 'app saw live.example.test\n' });
    expect((await get(caddy.httpPort, 'LIVE.Example.test')).status).to.equal(200);
    expect(await get(caddy.httpPort, 'other-199.example.test')).to.deep.equal({ status: 200, text: 'app saw other-199.example.test\n' });
    expect(await get(caddy.httpPort, 'idle.example.test')).to.deep.equal({ status: 503, text: 'no running deployment for this service\n' });
    expect(await get(caddy.httpPort, 'nobody.example.test')).to.deep.equal({ status: 404, text: 'no service is routed for this hostname\n' });
  });
});
