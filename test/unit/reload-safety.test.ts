// The start-up warning for a kernel that resets connections at every Caddy reload.
import { expect } from 'chai';
import { reloadResetWarning } from '../../daemon/proxy/reload-safety.js';

describe('Caddy reload safety at start-up', () => {
  it('warns, naming the setting and the fix, when tcp_migrate_req is 0', () => {
    const warning = reloadResetWarning(() => '0\n');
    expect(warning).to.match(/net\.ipv4\.tcp_migrate_req is 0/);
    expect(warning).to.include('installers/tune-kernel.sh apply');
  });

  it('says nothing when it is 1, or when the kernel has no such setting', () => {
    expect(reloadResetWarning(() => '1\n')).to.equal(null);
    expect(
      reloadResetWarning(() => {
        throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      }),
    ).to.equal(null);
  });
});
