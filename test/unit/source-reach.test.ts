// Where a redis import may connect from the daemon, for a key over selected projects: the rules of
// pinSourceAddress on given facts (this host's addresses, Docker's subnets, what a name resolves
// to). The real daemon, Engine and resolver are in test/security/data-imports.test.ts.
import { expect } from 'chai';
import { pinSourceAddress, type ReachFacts } from '../../daemon/backups/source-reach.js';
import type { ImportReach } from '../../daemon/core/ports/backup-jobs.js';

const names: Record<string, string[]> = {
  'db.example.com': ['203.0.113.7'],
  'rebind.example.com': ['203.0.113.8', '127.0.0.1'],
  'inside.example.com': ['172.18.0.5'],
  'empty.example.com': [],
};
const facts: ReachFacts = {
  lookup: async (hostname) => {
    const found = names[hostname];
    if (!found) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    return found;
  },
  hostAddresses: () => ['127.0.0.1', '::1', '10.0.0.5', '172.17.0.1', 'fe80::1'],
  dockerSubnets: async () => ['172.17.0.0/16', '172.18.0.0/16', 'fd00:dead::/64', 'not a subnet'],
};
const tenant: ImportReach = { anywhere: false, ownHostPorts: new Set([20001]) };
const pin = (url: string, reach: ImportReach = tenant) => pinSourceAddress(new URL(url), reach, facts);

async function refusal(url: string): Promise<{ status: number; message: string }> {
  try {
    await pin(url);
  } catch (err) {
    return { status: (err as { status: number }).status, message: (err as Error).message };
  }
  throw new Error(`${url} was not refused`);
}

describe('redis import sources: where a key over selected projects may connect', () => {
  it('a key over all projects is not checked: the import connects to the host as given', async () => {
    expect(await pin('redis://127.0.0.1:6379', { anywhere: true })).to.equal(null);
  });

  it('another server, by name or address, is pinned to the address that was checked', async () => {
    expect(await pin('redis://db.example.com:6379/0')).to.equal('203.0.113.7');
    expect(await pin('rediss://u:p@203.0.113.9')).to.equal('203.0.113.9');
    expect(await pin('redis://10.0.0.6:6379'), 'a neighbour on the private network').to.equal('10.0.0.6');
    expect(await pin('redis://[2001:db8::1]:6379')).to.equal('2001:db8::1');
  });

  it("this host is refused (403) on any port but its own databases' host ports", async () => {
    for (const url of ['redis://127.0.0.1:20002', 'redis://127.0.0.9:20002/0', 'redis://[::1]:6379', 'redis://[::ffff:127.0.0.1]:20002', 'redis://10.0.0.5:20002', 'redis://0.0.0.0:20001']) {
      const r = await refusal(url);
      expect(r.status, url).to.equal(403);
    }
    expect((await refusal('redis://127.0.0.1:6379')).message).to.include('127.0.0.1 is this server');
    expect(await pin('redis://127.0.0.1:20001/0'), 'its own database on its host port').to.equal('127.0.0.1');
    expect(await pin('redis://[::ffff:127.0.0.1]:20001')).to.equal('::ffff:7f00:1');
    expect(await pin('redis://10.0.0.5:20001'), "the host's own address, on its own host port").to.equal('10.0.0.5');
  });

  it("containers (every Docker network's subnet, IPv4 and IPv6) and link-local addresses are refused on every port", async () => {
    for (const url of ['redis://172.18.0.5:6379', 'redis://172.17.0.2:20001', 'redis://[fd00:dead::2]:6379', 'redis://169.254.169.254:6379', 'redis://[fe80::2]:6379']) {
      const r = await refusal(url);
      expect(r.status, url).to.equal(403);
      expect(r.message, url).to.match(/containers or a link-local address/);
    }
  });

  it('a name is refused when any address it resolves to is refused (a name for a container, DNS rebinding)', async () => {
    const inside = await refusal('redis://inside.example.com:6379');
    expect(inside.status).to.equal(403);
    expect(inside.message).to.include('inside.example.com (172.18.0.5)');
    expect((await refusal('redis://rebind.example.com:6379')).status).to.equal(403);
  });

  it('a name that does not resolve is a 400 that says so', async () => {
    for (const host of ['nowhere.example.com', 'empty.example.com']) {
      const r = await refusal(`redis://${host}:6379`);
      expect(r.status, host).to.equal(400);
      expect(r.message, host).to.include(`${host} does not resolve`);
    }
  });
});
