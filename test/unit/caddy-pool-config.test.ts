// A Swarm-backed service's hostnames and host port route to a pool of tasks (proxy/caddy-config.ts):
// one reverse proxy per pool with every task as an upstream, retries on another task for a while
// (a request to a dead task is not a failed request) and passive health checks; a container's
// config stays exactly what it was without pools.
import { expect } from 'chai';
import { caddyConfig, type CaddyConfigInput } from '../../daemon/proxy/caddy-config.js';

const base: CaddyConfigInput = {
  routes: [
    { hostname: 'one.example.test', upstream: '127.0.0.1:41000', serviceId: 's1' },
    { hostname: 'many.example.test', upstream: 'pool:s2', serviceId: 's2' },
    { hostname: 'www.many.example.test', upstream: 'pool:s2', serviceId: 's2' },
  ],
  hostPorts: [
    { hostPort: 3001, bindHost: '127.0.0.1', upstream: '127.0.0.1:41000' },
    { hostPort: 3002, bindHost: '127.0.0.1', upstream: 'pool:s2' },
  ],
  httpsMode: 'http',
  acmeEmail: null,
  httpAddr: '127.0.0.1:8080',
  httpsAddr: '127.0.0.1:8443',
  adminListen: '127.0.0.1:2019',
};

type Json = Record<string, unknown>;
const servers = (c: Json) => (c.apps as Json & { http: { servers: Record<string, { routes: Json[] }> } }).http.servers;

describe('Caddy config for a pool of Swarm tasks', () => {
  const pools = new Map([['s2', ['10.0.0.2:30001', '10.0.0.3:30002', '10.0.0.3:30003']]]);
  const config = caddyConfig({ ...base, pools });

  it('routes the pool hostnames through one reverse proxy with every task as an upstream', () => {
    const routes = servers(config).berth!.routes;
    const pooled = routes.filter((r) => JSON.stringify(r.match ?? []).includes('pool:s2'));
    expect(pooled).to.have.length(1);
    const proxy = (pooled[0]!.handle as Json[])[0]!;
    expect(proxy.handler).to.equal('reverse_proxy');
    expect(proxy.upstreams).to.deep.equal([{ dial: '10.0.0.2:30001' }, { dial: '10.0.0.3:30002' }, { dial: '10.0.0.3:30003' }]);
    expect(proxy.load_balancing).to.deep.equal({ selection_policy: { policy: 'round_robin' }, try_duration: '5s', try_interval: '250ms' });
    expect((proxy.health_checks as Json).passive).to.include({ max_fails: 1 });
    expect((proxy.transport as Json).dial_timeout).to.equal('1s');
    // the hostnames themselves only name the pool (the vars design)
    expect(JSON.stringify(routes)).to.include('"berth_upstream":"pool:s2"');
  });

  it('routes the host port of a pooled service to the same upstreams', () => {
    const handler = (servers(config).berth_port_3002!.routes[0]!.handle as Json[])[0]!;
    expect(handler.upstreams).to.have.length(3);
    expect(handler.load_balancing).to.include({ try_duration: '5s' });
  });

  it('answers 503 for a pool without any answering task', () => {
    const empty = caddyConfig({ ...base, pools: new Map() });
    const handler = (servers(empty).berth_port_3002!.routes[0]!.handle as Json[])[0]!;
    expect(handler).to.include({ handler: 'static_response', status_code: 503 });
  });

  it('leaves a config without pools byte-identical to one built before pools existed', () => {
    const plain = { ...base, routes: base.routes.slice(0, 1), hostPorts: base.hostPorts.slice(0, 1) };
    expect(JSON.stringify(caddyConfig({ ...plain, pools: new Map() }))).to.equal(JSON.stringify(caddyConfig(plain)));
    const one = servers(caddyConfig(plain)).berth_port_3001!.routes[0]!.handle as Json[];
    expect(one[0]).to.not.have.property('load_balancing');
    expect(one[0]!.upstreams).to.deep.equal([{ dial: '127.0.0.1:41000' }]);
  });
});
