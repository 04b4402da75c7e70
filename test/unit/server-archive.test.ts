// Berth's own backup archive (daemon/server-tools/server-archive.ts, archive-crypto.ts): what goes
// in comes back out with the passphrase; a wrong passphrase or one changed byte opens nothing and
// puts nothing in place; a restore refuses a server that has a store already.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServerArchive, restoreServerArchive, type ServerPaths } from '../../daemon/server-tools/server-archive.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const PASSPHRASE = 'correct horse battery staple';

describe('server archive: Berth’s own backup, encrypted under a passphrase', function () {
  this.timeout(30_000);
  let root = '';
  let source: ServerPaths;
  let archive = '';

  const target = (name: string): ServerPaths => ({ dataDir: join(root, name, 'data'), etcDir: join(root, name, 'etc'), caddyHome: join(root, name, 'caddy') });

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'berth-archive-test-'));
    source = target('source');
    // a real store, made by the server's own key tool
    execFileSync(process.execPath, [join(REPO_ROOT, 'dist/daemon/cli.js'), 'keys', 'create', '--access', 'read', '--projects', 'all', '--name', 'kept'], {
      env: { ...process.env, BERTH_DATA_DIR: source.dataDir },
      stdio: 'ignore',
    });
    mkdirSync(source.etcDir, { recursive: true });
    writeFileSync(join(source.etcDir, 'berth.env'), 'BERTH_PORT=4311\n');
    mkdirSync(join(source.caddyHome, '.config/caddy'), { recursive: true });
    writeFileSync(join(source.caddyHome, '.config/caddy/autosave.json'), '{"apps":{}}\n');
    mkdirSync(join(source.caddyHome, '.local/share/caddy/pki'), { recursive: true });
    writeFileSync(join(source.caddyHome, '.local/share/caddy/pki/root.key'), 'the CA key\n');
    const made = await createServerArchive(source, PASSPHRASE, join(root, 'out'));
    archive = made.file;
    expect(made.manifest.counts.keys).to.equal(1);
    expect(readFileSync(`${archive}.sha256`, 'utf8')).to.equal(`${made.sha256}  ${archive.split('/').pop()}\n`);
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  it('holds nothing readable: no SQLite header, no secret, no file name', () => {
    const bytes = readFileSync(archive);
    for (const text of ['SQLite format', 'secret.key', 'the CA key', 'berth.env', 'BERTH_PORT']) expect(bytes.includes(Buffer.from(text)), text).to.equal(false);
    expect(statSync(archive).mode & 0o777).to.equal(0o600);
  });

  it('restores the store, the sealing secret, /etc/berth and Caddy’s state with the passphrase', async () => {
    const t = target('restored');
    const manifest = await restoreServerArchive(archive, PASSPHRASE, t);
    expect(manifest.counts).to.include({ keys: 1 });
    expect(readFileSync(join(t.dataDir, 'secret.key'))).to.deep.equal(readFileSync(join(source.dataDir, 'secret.key')));
    expect(statSync(join(t.dataDir, 'berth.sqlite')).mode & 0o777).to.equal(0o600);
    expect(readFileSync(join(t.etcDir, 'berth.env'), 'utf8')).to.equal('BERTH_PORT=4311\n');
    expect(readFileSync(join(t.caddyHome, '.config/caddy/autosave.json'), 'utf8')).to.equal('{"apps":{}}\n');
    expect(readFileSync(join(t.caddyHome, '.local/share/caddy/pki/root.key'), 'utf8')).to.equal('the CA key\n');
    const keys = execFileSync(process.execPath, [join(REPO_ROOT, 'dist/daemon/cli.js'), 'keys', 'list'], { env: { ...process.env, BERTH_DATA_DIR: t.dataDir }, encoding: 'utf8' });
    expect(keys).to.match(/\tread\tall\tkept\t/);
  });

  it('a wrong passphrase opens nothing and puts nothing in place', async () => {
    const t = target('wrong');
    const err = await restoreServerArchive(archive, 'not the passphrase at all', t).catch((e: Error) => e);
    expect(String(err)).to.include('does not open with this passphrase');
    expect(existsSync(join(t.dataDir, 'berth.sqlite'))).to.equal(false);
    expect(existsSync(t.etcDir)).to.equal(false);
  });

  it('one changed byte is refused: by the checksum beside it, and without it by the cipher', async () => {
    const copy = join(root, 'tampered', 'archive.tar.gz.enc');
    mkdirSync(join(root, 'tampered'), { recursive: true });
    const bytes = readFileSync(archive);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(copy, bytes);
    writeFileSync(`${copy}.sha256`, readFileSync(`${archive}.sha256`, 'utf8').replace(/ .*/, '  archive.tar.gz.enc'));
    expect(String(await restoreServerArchive(copy, PASSPHRASE, target('t1')).catch((e: Error) => e))).to.include('checksum mismatch');
    rmSync(`${copy}.sha256`);
    expect(String(await restoreServerArchive(copy, PASSPHRASE, target('t2')).catch((e: Error) => e))).to.include('does not open with this passphrase');
    expect(existsSync(join(target('t2').dataDir, 'berth.sqlite'))).to.equal(false);
  });

  it('refuses a server that has a store already', async () => {
    const err = await restoreServerArchive(archive, PASSPHRASE, source).catch((e: Error) => e);
    expect(String(err)).to.include('holds a store already');
  });
});
