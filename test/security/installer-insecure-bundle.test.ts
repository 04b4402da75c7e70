// The installer downloads a release bundle and checks it against the SHA256SUMS beside it. Over
// plain http:// anyone on the path (a hostile network, a tenant's container on the same L2) swaps
// both together, and the server then runs their daemon as root. So `--from http://...` is refused
// before anything happens, unless `--insecure` says the network is trusted. Shell only: the
// refusal comes from argument parsing, before any check of the machine.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/repo-root.js';

describe('installer: a bundle over plain http:// only with --insecure', function () {
  this.timeout(60_000);
  const script = join(REPO_ROOT, 'installers/install.sh');
  // nothing listens on port 9: a download attempt fails at once, and says so
  const bundle = 'http://127.0.0.1:9/berth-1.0.0-linux-x64.tar.gz';
  const run = (...args: string[]) => spawnSync('bash', [script, ...args], { encoding: 'utf8', timeout: 30_000 });

  it('refuses --from http:// (any spelling) with exit 2 and a reason, downloading nothing', () => {
    for (const url of [bundle, bundle.replace('http:', 'HTTP:')]) {
      for (const args of [
        ['--from', url, '--dry-run'],
        [`--from=${url}`, '--dry-run', '--yes'],
      ]) {
        const out = run(...args);
        expect(out.status, out.stderr).to.equal(2);
        expect(out.stderr).to.match(/refusing to download the bundle over plain http:\/\/.*--insecure/);
        expect(out.stderr).not.to.include('downloading');
      }
    }
  });

  it('with --insecure, goes on to download it', () => {
    const out = run('--insecure', '--from', bundle, '--dry-run');
    expect(out.stderr).not.to.match(/refusing to download/);
    expect(out.stderr).to.include(`downloading ${bundle}`);
  });
});
