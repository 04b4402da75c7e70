// Before a load, Berth tries the addresses a new configuration listens on that Caddy does not hold
// yet (daemon/proxy/listen-check.ts): Caddy 2.6 would otherwise keep a refused configuration's
// servers answering beside the previous ones. Real sockets here: a taken address is found, a free
// one is left free, and only "in use" counts.
import { expect } from 'chai';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { firstAddressInUse, listenAddresses, parseListen } from '../../daemon/proxy/listen-check.js';

function listen(host: string, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(port, host, () => resolve(srv));
  });
}
const close = (srv: Server) => new Promise((r) => srv.close(r));

describe('listen addresses checked before a Caddy load', () => {
  it('lists every HTTP server address of a configuration once', () => {
    const config = {
      apps: {
        http: {
          servers: {
            berth: { listen: [':80'] },
            'berth-port-20001': { listen: ['127.0.0.1:20001'] },
            other: { listen: [':80', '[::1]:8443'] },
            broken: { listen: 'not a list' },
          },
        },
      },
    };
    expect(listenAddresses(config)).to.deep.equal([':80', '127.0.0.1:20001', '[::1]:8443']);
    expect(listenAddresses({})).to.deep.equal([]);
    expect(listenAddresses(null)).to.deep.equal([]);
  });

  it("reads Caddy's address forms and refuses what it does not generate", () => {
    expect(parseListen(':80')).to.deep.equal({ host: undefined, port: 80 });
    expect(parseListen('127.0.0.1:20001')).to.deep.equal({ host: '127.0.0.1', port: 20001 });
    expect(parseListen('tcp/0.0.0.0:443')).to.deep.equal({ host: '0.0.0.0', port: 443 });
    expect(parseListen('[::1]:8443')).to.deep.equal({ host: '::1', port: 8443 });
    for (const odd of ['unix//run/caddy.sock', ':8000-8010', '127.0.0.1:0', '127.0.0.1:70000', 'localhost']) expect(parseListen(odd), odd).to.equal(null);
  });

  it('names an address another program listens on, on loopback and through the wildcard form', async () => {
    const squatter = await listen('127.0.0.1');
    const port = (squatter.address() as AddressInfo).port;
    try {
      expect(await firstAddressInUse([`127.0.0.1:${port}`])).to.equal(`127.0.0.1:${port}`);
      expect(await firstAddressInUse([`:${port}`])).to.equal(`:${port}`);
    } finally {
      await close(squatter);
    }
  });

  it('passes free addresses and leaves them free', async () => {
    const srv = await listen('127.0.0.1');
    const port = (srv.address() as AddressInfo).port;
    await close(srv);
    expect(await firstAddressInUse([`127.0.0.1:${port}`, 'unix//run/x.sock'])).to.equal(null);
    const again = await listen('127.0.0.1', port); // the probe did not keep it
    await close(again);
  });

  it('leaves an address this process may not use to Caddy (only "in use" refuses a load)', async () => {
    // 192.0.2.1 (TEST-NET-1) is on no interface here: EADDRNOTAVAIL, not a refusal
    expect(await firstAddressInUse(['192.0.2.1:8080'])).to.equal(null);
  });
});
