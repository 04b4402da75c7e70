// The server's address: the default route's interface, never a Docker bridge or another virtual
// interface (a reboot that brought Docker's bridges up first once gave 172.18.0.1), and the address
// detected on the first start is kept across starts.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import type { NetworkInterfaceInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultRouteInterfaces, detectServerIpv4, keptDetectedIp, publicIpSource } from '../../daemon/public-ip.js';
import { openDataDir } from '../../daemon/runtime.js';

const v4 = (address: string, internal = false): NetworkInterfaceInfo => ({ address, family: 'IPv4', internal, netmask: '255.255.0.0', mac: '02:42:00:00:00:00', cidr: `${address}/16` });

// Docker's bridges listed before the network card, as after that reboot
const INTERFACES = {
  lo: [v4('127.0.0.1', true)],
  docker0: [v4('172.17.0.1')],
  docker_gwbridge: [v4('172.18.0.1')],
  'br-0c1d2e3f4a5b': [v4('172.19.0.1')],
  brth1234567890a: [v4('192.168.48.1')],
  veth12ab: [v4('169.254.3.4')],
  eth0: [v4('203.0.113.7')],
};

const HEADER = 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT';
const ROUTES = [
  HEADER,
  'docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0',
  'eth0\t00000000\t017100CB\t0003\t0\t0\t100\t00000000\t0\t0\t0',
  'docker_gwbridge\t000012AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0',
  'eth0\t007100CB\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0',
].join('\n');

describe("the server's address", () => {
  it('is the default route interface address even when Docker bridges come first in interface order', () => {
    expect(defaultRouteInterfaces(ROUTES)).to.deep.equal(['eth0']);
    expect(detectServerIpv4(ROUTES, INTERFACES)).to.equal('203.0.113.7');
  });

  it('takes the lowest-metric default route, and skips one through a virtual interface', () => {
    const routes = [
      HEADER,
      'wg0\t00000000\t00000000\t0001\t0\t0\t10\t00000000\t0\t0\t0',
      'ens3\t00000000\t010000C0\t0003\t0\t0\t200\t00000000\t0\t0\t0',
      'eth0\t00000000\t017100CB\t0003\t0\t0\t100\t00000000\t0\t0\t0',
    ].join('\n');
    expect(defaultRouteInterfaces(routes)).to.deep.equal(['wg0', 'eth0', 'ens3']);
    expect(detectServerIpv4(routes, { ...INTERFACES, wg0: [v4('10.8.0.2')], ens3: [v4('198.51.100.9')] })).to.equal('203.0.113.7');
  });

  it('without a default route, is the first physical interface address, never a bridge, veth or link-local one', () => {
    expect(detectServerIpv4(HEADER, INTERFACES)).to.equal('203.0.113.7');
    expect(detectServerIpv4('', { ...INTERFACES, eth0: [v4('169.254.9.9')] })).to.equal('127.0.0.1');
  });

  it('detected on the first start is kept: a later start with other interfaces keeps it, and the setting overrides it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-ip-'));
    try {
      const store = await openDataDir(dir);
      await store.settings.set('detectedIp', '203.0.113.7', new Date().toISOString());
      // as if the interfaces had changed since: the kept address wins
      expect(await keptDetectedIp(store.settings)).to.equal('203.0.113.7');
      const publicIp = publicIpSource(store.settings, await keptDetectedIp(store.settings));
      expect(await publicIp()).to.equal('203.0.113.7');
      await store.settings.set('publicIp', '198.51.100.20', new Date().toISOString());
      expect(await publicIp()).to.equal('198.51.100.20');
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on a first start, detects and stores the address', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-ip-'));
    try {
      const store = await openDataDir(dir);
      const first = await keptDetectedIp(store.settings);
      expect(first).to.match(/^\d+\.\d+\.\d+\.\d+$/);
      expect(await store.settings.get('detectedIp')).to.equal(first);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
