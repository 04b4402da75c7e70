// Where an upgrade asked for through the API may come from: BERTH_UPGRADE_SOURCES as read from the
// environment, and the rule the daemon applies to a request (the installer's upgrade.sh applies the
// same one again, outside the daemon).
import { expect } from 'chai';
import { ConfigError, readConfig } from '../../daemon/config.js';
import { tenantWritableDirs, upgradeSourceRefusal } from '../../daemon/core/upgrade-text.js';

const refused = tenantWritableDirs('/var/lib/berth');

describe('upgrade sources', () => {
  it('BERTH_UPGRADE_SOURCES takes https URL prefixes and absolute folders separated by spaces or commas; nothing set means none', () => {
    expect(readConfig({}).upgrade.sources).to.deep.equal([]);
    expect(readConfig({ BERTH_UPGRADE_SOURCES: ' https://releases.example.com/berth/, /root/bundles/  /srv' }).upgrade.sources).to.deep.equal([
      'https://releases.example.com/berth/',
      '/root/bundles/',
      '/srv',
    ]);
  });

  it('BERTH_UPGRADE_SOURCES refuses plain http, relative paths, the whole disk and ".." at start-up', () => {
    for (const bad of ['http://releases.example.com/', 'releases/', '/', '/srv/../var/lib/berth', 'https://user@host/', 'https://']) {
      expect(() => readConfig({ BERTH_UPGRADE_SOURCES: bad }), bad).to.throw(ConfigError, /BERTH_UPGRADE_SOURCES/);
    }
  });

  it('allows a bundle at a source or below it, never a look-alike host or folder', () => {
    const sources = ['https://releases.example.com/berth/', '/root/bundles', 'https://dl.example.org'];
    for (const ok of ['https://releases.example.com/berth/1.2.3/berth-1.2.3.tar.gz', '/root/bundles/1.2.3/berth.tar.gz', '/root/bundles', 'https://dl.example.org/b.tar.gz']) {
      expect(upgradeSourceRefusal(ok, sources, refused), ok).to.equal(null);
    }
    for (const no of [
      'https://releases.example.com/berthx/b.tar.gz',
      'https://releases.example.com/other/b.tar.gz',
      'https://releases.example.com.evil.example/berth/b.tar.gz',
      'https://dl.example.org.evil.example/b.tar.gz',
      '/root/bundles-evil/b.tar.gz',
      '/root/b.tar.gz',
    ]) {
      expect(upgradeSourceRefusal(no, sources, refused), no).to.match(/is not an upgrade source this server accepts/);
    }
    expect(upgradeSourceRefusal('/root/b.tar.gz', [], refused)).to.match(/none is set/);
  });

  it("never takes a bundle from a folder apps or other users can write (Berth's data dir, Docker's, the temporary ones), whatever the sources say", () => {
    const wide = ['/var', '/tmp', '/dev'];
    for (const path of ['/var/lib/berth/backups/pg/b.tar.gz', '/var/lib/docker/volumes/x/_data/b.tar.gz', '/tmp/b.tar.gz', '/var/tmp/b.tar.gz', '/dev/shm/b.tar.gz', '/var/lib']) {
      expect(upgradeSourceRefusal(path, wide, refused), path).to.match(/is never installed: apps or other users can write there/);
    }
    expect(upgradeSourceRefusal('/var/opt/berth/b.tar.gz', wide, refused)).to.equal(null);
  });
});
