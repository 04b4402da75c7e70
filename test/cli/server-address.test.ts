// `berth server address` and `berth server set-address` against a daemon whose API Caddy serves
// over HTTPS with its internal CA (as installed): the change says what it does and asks first,
// prints the new fingerprint and the exact `berth login` line, re-pins the CLI's own context; a
// CLI elsewhere still pinned to the old certificate is refused with the plain message.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatFingerprint } from '../../shared/pinned-tls.js';
import type { ServerAddress } from '../../shared/types.js';
import { servedCertificate, startTlsTestDaemon, type TlsTestDaemon } from '../helpers/api-tls.js';
import { cliHome, type CliHome } from '../helpers/cli.js';

const short = (hex: string) => `${formatFingerprint(hex).slice(0, 11)}…`;

describe('berth server address / set-address', function () {
  this.timeout(120_000);
  let s: TlsTestDaemon;
  let token: string;
  let here: CliHome;
  let elsewhere: CliHome;
  let first: string;

  before(async () => {
    s = await startTlsTestDaemon();
    token = (await s.t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' })).token;
    first = (await servedCertificate(s.port)).fingerprint;
    here = cliHome();
    elsewhere = cliHome();
    for (const cli of [here, elsewhere]) {
      const r = await cli.run(['login', s.url, '--fingerprint', first, '--name', 'box'], { input: `${token}\n` });
      expect(r.code, r.stderr).to.equal(0);
    }
  });
  after(async () => {
    here?.remove();
    elsewhere?.remove();
    await s?.t.stop();
  });

  it('server address shows the address, that it was detected, and the fingerprint (also as JSON)', async () => {
    const r = await here.run(['server', 'address']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^address {5}\S+ \(detected on the first start\)$/m);
    expect(r.stdout).to.include(`fingerprint ${first}`);
    const j = await here.run(['server', 'address', '--json']);
    const [a] = j.json<ServerAddress>();
    expect(a).to.include({ detected: true, fingerprint: first });
  });

  it('set-address without --yes and without a terminal says what would happen and changes nothing', async () => {
    const r = await here.run(['server', 'set-address', '198.51.100.44']);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('the API certificate is re-issued').and.include('refused until it re-pins').and.include('pass --yes');
    expect((await s.t.admin.serverAddress()).address).to.include({ detected: true, fingerprint: first });
  });

  it('set-address --yes prints the new fingerprint and the exact login line, and re-pins its own context', async () => {
    const r = await here.run(['server', 'set-address', '198.51.100.44', '--yes']);
    expect(r.code, r.stderr).to.equal(0);
    const served = await servedCertificate(s.port);
    expect(served.ips).to.deep.equal(['198.51.100.44']);
    expect(served.fingerprint).to.not.equal(first);
    expect(r.stdout).to.include('address set to 198.51.100.44');
    expect(r.stdout).to.include(`fingerprint ${served.fingerprint}`);
    // the CLI reached the server at 127.0.0.1, not at the old address: the URL stays
    expect(r.stdout).to.include(`re-pin every other client: berth login ${s.url} --fingerprint ${served.fingerprint}`);
    expect(r.stdout).to.include("re-pinned this CLI's context box");
    const saved = JSON.parse(readFileSync(join(here.configHome, 'berth', 'config.json'), 'utf8')) as { contexts: Record<string, { fingerprint: string }> };
    expect(saved.contexts.box!.fingerprint).to.equal(served.fingerprint);
    const after = await here.run(['projects']);
    expect(after.code, after.stderr).to.equal(0);
  });

  it('a CLI still pinned to the old certificate says plainly what changed and how to re-pin (exit 3)', async () => {
    const { fingerprint } = await servedCertificate(s.port);
    const r = await elsewhere.run(['projects']);
    expect(r.code).to.equal(3);
    expect(r.stderr.trim()).to.equal(
      `berth: the server's certificate changed (pinned ${short(first)}, served ${short(fingerprint)}): if you changed the server's address, ` +
        `re-pin with \`berth login ${s.url} --fingerprint ${fingerprint}\`; otherwise do not connect: someone may be in between`,
    );
    // the line it prints works
    const again = await elsewhere.run(['login', s.url, '--fingerprint', fingerprint, '--name', 'box'], { input: `${token}\n` });
    expect(again.code, again.stderr).to.equal(0);
    expect((await elsewhere.run(['projects'])).code).to.equal(0);
  });

  it('the same address again is no change (JSON); a loopback address is refused by the server (exit 1)', async () => {
    const { fingerprint } = await servedCertificate(s.port);
    const same = await here.run(['server', 'set-address', '198.51.100.44', '--json']);
    expect(same.code, same.stderr).to.equal(0);
    const [answer] = same.json<{ changed: boolean; address: ServerAddress; repinned: string[] }>();
    expect(answer).to.deep.include({ changed: false, repinned: [] });
    expect(answer!.address.fingerprint).to.equal(fingerprint);
    const bad = await here.run(['server', 'set-address', '127.0.0.1', '--yes']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('a loopback address is this machine itself').and.include('[400 invalid_input]');
    expect((await servedCertificate(s.port)).fingerprint).to.equal(fingerprint);
  });
});
