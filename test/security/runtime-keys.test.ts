// API key secrets at rest and BERTH_BOOTSTRAP_KEY rotation: keys are stored as keyed hashes (never
// the plain SHA-256 a copied database could be checked against), keys stored the old way keep
// working after the upgrade, and a daemon restarted with a different BERTH_BOOTSTRAP_KEY revokes the
// key made for the earlier value while every other key keeps working.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { BerthClient } from '../../shared/client.js';
import { readConfig } from '../../daemon/config.js';
import { startDaemon, type RunningDaemon } from '../../daemon/server.js';
import { DB_FILE } from '../../daemon/store/open.js';
import { migrationSource } from '../../daemon/store/migrations.js';
import { tokenHasherFromKey } from '../../daemon/crypto/token-hash.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function openDb(dataDir: string): Knex {
  return knexFactory({ client: 'sqlite3', connection: { filename: join(dataDir, DB_FILE) }, useNullAsDefault: true });
}

describe('security: API key hashes and bootstrap key rotation', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: RunningDaemon | null = null;

  async function start(bootstrap: string): Promise<BerthClient> {
    const config = readConfig({
      BERTH_HOST: '127.0.0.1',
      BERTH_PORT: '0',
      BERTH_DATA_DIR: dataDir,
      BERTH_BOOTSTRAP_KEY: bootstrap,
      BERTH_PORT_RANGE: PORT_RANGES.runtimeKeys,
      BERTH_CADDY_ADMIN: 'http://127.0.0.1:1',
      // no Engine needed here
      BERTH_DOCKER_SOCKET: join(dataDir, 'no-docker.sock'),
    });
    daemon = await startDaemon(config, () => undefined);
    return new BerthClient(daemon.url, bootstrap);
  }
  async function stop(): Promise<void> {
    await daemon?.stop();
    daemon = null;
  }
  const status = async (url: string, token: string) => (await new BerthClient(url, token).request('GET', '/api/projects')).status;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'berth-keys-'));
  });
  afterEach(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a restart with a different BERTH_BOOTSTRAP_KEY revokes the old one; the new one and every other key work', async () => {
    const first = 'bootstrap-first-0123456789abcdef';
    const second = 'bootstrap-second-0123456789abcdef';
    let admin = await start(first);
    const { project } = await admin.createProject({ name: 'kept' });
    const all = (await admin.createKey({ name: 'ci', access: 'write', projects: 'all' })).token;
    const scoped = (await admin.createKey({ name: 'scoped', access: 'write', projects: [project.id] })).token;
    // a key an operator happened to name "bootstrap" is not the bootstrap key
    const namedLikeIt = (await admin.createKey({ name: 'bootstrap', access: 'write', projects: 'all' })).token;
    await stop();

    admin = await start(second);
    const url = admin.baseUrl;
    expect(await status(url, first)).to.equal(401);
    expect(await status(url, second)).to.equal(200);
    for (const token of [all, scoped, namedLikeIt]) expect(await status(url, token)).to.equal(200);
    const names = (await admin.listKeys()).keys.map((k) => k.name).sort();
    expect(names).to.deep.equal(['bootstrap', 'bootstrap', 'ci', 'scoped']);
    await stop();

    // the same value again changes nothing
    admin = await start(second);
    expect(await status(admin.baseUrl, second)).to.equal(200);
    expect((await admin.listKeys()).keys).to.have.length(4);
  });

  it('stores keyed hashes only: no secret and no plain SHA-256 of one is in the database', async () => {
    const bootstrap = 'bootstrap-hash-0123456789abcdef';
    const admin = await start(bootstrap);
    const { token } = await admin.createKey({ name: 'reader', access: 'read', projects: 'all' });
    await stop();
    const db = openDb(dataDir);
    try {
      const stored = (await db('keys').select('token_hash')).map((r: { token_hash: string }) => r.token_hash);
      expect(stored).to.have.length(2);
      for (const secret of [bootstrap, token]) {
        expect(stored).not.to.include(sha256(secret));
        expect(stored.join(' ')).not.to.include(secret);
      }
      for (const h of stored) expect(h).to.match(/^hmac1:[0-9a-f]{64}$/);
    } finally {
      await db.destroy();
    }
  });

  it('keys stored as plain SHA-256 before the upgrade keep working; the old bootstrap key is recognised and revoked on rotation', async () => {
    // a data dir as the previous release left it: migrations up to 005, hashes as plain SHA-256
    const legacyBootstrap = 'bootstrap-legacy-0123456789abcdef';
    const legacyCi = 'berth_legacy-ci-key-0123456789abcdefghijklmnop';
    const db = openDb(dataDir);
    try {
      const full = migrationSource({ tokens: tokenHasherFromKey(Buffer.alloc(32)) });
      const old = (await full.getMigrations([])).filter((m) => full.getMigrationName(m) < '006');
      await db.migrate.latest({ migrationSource: { ...full, getMigrations: async () => old } });
      const now = new Date().toISOString();
      await db('keys').insert([
        { id: 'k-boot', name: 'bootstrap', access: 'write', projects: JSON.stringify('all'), token_hash: sha256(legacyBootstrap), created_at: now },
        { id: 'k-ci', name: 'ci', access: 'read', projects: JSON.stringify('all'), token_hash: sha256(legacyCi), created_at: now },
      ]);
    } finally {
      await db.destroy();
    }

    let admin = await start(legacyBootstrap);
    expect(await status(admin.baseUrl, legacyBootstrap)).to.equal(200);
    expect(await status(admin.baseUrl, legacyCi)).to.equal(200);
    expect((await admin.listKeys()).keys.map((k) => k.id).sort()).to.deep.equal(['k-boot', 'k-ci']);
    await stop();

    admin = await start('bootstrap-rotated-0123456789abcdef');
    expect(await status(admin.baseUrl, legacyBootstrap)).to.equal(401);
    expect(await status(admin.baseUrl, legacyCi)).to.equal(200);
    expect(await status(admin.baseUrl, 'bootstrap-rotated-0123456789abcdef')).to.equal(200);
  });
});
