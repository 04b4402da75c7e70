// Berth's own backup: one encrypted archive of everything that makes this server this Berth, so
// that a fresh server restored from it (`install.sh --restore`) has the same projects, services,
// keys, domains and settings, and serves the same API certificate:
//
//   data/berth.sqlite   the store, a consistent copy taken while the daemon runs (VACUUM INTO)
//   data/<files>        the data dir's own files (secret.key seals stored credentials)
//   etc/                /etc/berth (berth.env, install.env)
//   caddy/config/       Caddy's saved configuration (autosave.json: every route Berth loaded)
//   caddy/data/         Caddy's certificates and its internal CA (the API certificate's issuer)
//   manifest.json       format, Berth version, when, from which host, counts
//
// Not inside: database contents and volumes (their own backups hold them: the restore redeploys
// databases from their latest backup), app images (rebuilt or pulled by the redeploy), logs.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, chown, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { VERSION } from '../version.js';
import { decryptFile, encryptToFile } from './archive-crypto.js';

const ARCHIVE_FORMAT = 1;
/** Files of the data dir above this size are not Berth's state (none is): left out, and said. */
const DATA_FILE_LIMIT = 4 * 1024 * 1024;

export interface ServerPaths {
  dataDir: string;
  etcDir: string;
  /** Caddy's HOME (Debian: /var/lib/caddy), holding .config/caddy and .local/share/caddy. */
  caddyHome: string;
}

export interface ArchiveManifest {
  format: number;
  berthVersion: string;
  createdAt: string;
  hostname: string;
  counts: { projects: number; services: number; keys: number; domains: number };
  left: string[];
}

export const defaultServerPaths = (dataDir: string): ServerPaths => ({
  dataDir,
  etcDir: process.env.BERTH_ETC_DIR ?? '/etc/berth',
  caddyHome: process.env.BERTH_CADDY_HOME ?? '/var/lib/caddy',
});

function sqliteRun(db: sqlite3.Database, sql: string, params: unknown[] = []): Promise<void> {
  return new Promise((resolve, reject) => db.run(sql, params, (err) => (err ? reject(err) : resolve())));
}

function sqliteCount(db: sqlite3.Database, table: string): Promise<number> {
  return new Promise((resolve) => db.get(`SELECT count(*) AS n FROM ${table}`, (err, row: { n: number } | undefined) => resolve(err || !row ? 0 : row.n)));
}

async function withDatabase<T>(path: string, mode: number, use: (db: sqlite3.Database) => Promise<T>): Promise<T> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const d = new sqlite3.Database(path, mode, (err) => (err ? reject(err) : resolve(d)));
  });
  try {
    return await use(db);
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

/** What the store holds, for the manifest and the restore's summary. */
function storeCounts(path: string): Promise<ArchiveManifest['counts']> {
  return withDatabase(path, sqlite3.OPEN_READONLY, async (db) => ({
    projects: await sqliteCount(db, 'projects'),
    services: await sqliteCount(db, 'services'),
    keys: await sqliteCount(db, 'keys'),
    domains: await sqliteCount(db, 'domains'),
  }));
}

function tar(args: string[]) {
  const child = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar ${args[0]} failed (exit ${code}): ${stderr.trim().slice(0, 500)}`))));
  });
  return { child, done };
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Writes `<outDir>/berth-server-<host>-<time>[-<tag>].tar.gz.enc` and its `.sha256` beside it (the
 * SHA256SUMS line format). The store is copied with VACUUM INTO, consistent while the daemon runs.
 * The daemon's runs give a tag (their id's first characters): two runs in one second keep apart.
 */
export async function createServerArchive(
  paths: ServerPaths,
  passphrase: string,
  outDir: string,
  now = new Date(),
  tag?: string,
): Promise<{ file: string; sha256: string; sizeBytes: number; manifest: ArchiveManifest }> {
  const store = join(paths.dataDir, 'berth.sqlite');
  if (!existsSync(store)) throw new Error(`no store at ${store}: is this a Berth server (BERTH_DATA_DIR)?`);
  await mkdir(outDir, { recursive: true, mode: 0o700 });
  const stage = await mkdtemp(join(outDir, '.stage-'));
  try {
    const left: string[] = [];
    await mkdir(join(stage, 'data'), { recursive: true });
    await withDatabase(store, sqlite3.OPEN_READONLY, (db) => sqliteRun(db, 'VACUUM INTO ?', [join(stage, 'data/berth.sqlite')]));
    for (const entry of await readdir(paths.dataDir, { withFileTypes: true })) {
      if (!entry.isFile() || entry.name.startsWith('berth.sqlite')) continue;
      const st = await stat(join(paths.dataDir, entry.name));
      if (st.size > DATA_FILE_LIMIT) left.push(`${paths.dataDir}/${entry.name} (${st.size} bytes)`);
      else await cp(join(paths.dataDir, entry.name), join(stage, 'data', entry.name), { preserveTimestamps: true });
    }
    if (existsSync(paths.etcDir)) await cp(paths.etcDir, join(stage, 'etc'), { recursive: true });
    else left.push(`${paths.etcDir} (none here)`);
    for (const [from, to] of [
      ['.config/caddy', 'caddy/config'],
      ['.local/share/caddy', 'caddy/data'],
    ] as const) {
      const src = join(paths.caddyHome, from);
      if (existsSync(src)) await cp(src, join(stage, to), { recursive: true });
      else left.push(`${src} (none here)`);
    }
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      berthVersion: VERSION,
      createdAt: now.toISOString(),
      hostname: hostname(),
      counts: await storeCounts(join(stage, 'data/berth.sqlite')),
      left,
    };
    await writeFile(join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const name = `berth-server-${hostname().replace(/[^A-Za-z0-9.-]/g, '-')}-${now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}${tag ? `-${tag}` : ''}.tar.gz.enc`;
    const file = join(outDir, name);
    let packed: Promise<void> = Promise.resolve();
    await encryptToFile(
      () => {
        const packer = tar(['-C', stage, '-czf', '-', '.']);
        packed = packer.done;
        return packer.child.stdout!;
      },
      `${file}.part`,
      passphrase,
    );
    await packed;
    await rename(`${file}.part`, file);
    const sha256 = await sha256File(file);
    await writeFile(`${file}.sha256`, `${sha256}  ${name}\n`, { mode: 0o600 });
    return { file, sha256, sizeBytes: (await stat(file)).size, manifest };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** The caddy user's uid/gid from /etc/passwd, when there is one (Debian's package creates it). */
async function caddyOwner(): Promise<{ uid: number; gid: number } | null> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const line = passwd.split('\n').find((l) => l.startsWith('caddy:'));
  if (!line) return null;
  const f = line.split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

async function chownTree(path: string, owner: { uid: number; gid: number }): Promise<void> {
  await chown(path, owner.uid, owner.gid);
  if (!(await stat(path)).isDirectory()) return;
  for (const name of await readdir(path)) await chownTree(join(path, name), owner);
}

/**
 * Opens the archive (checksum beside it checked when present, then the passphrase) and puts its
 * state in place on a server whose data dir holds no store yet (a fresh install before its first
 * start). Nothing is put in place unless the whole archive opened.
 */
export async function restoreServerArchive(archive: string, passphrase: string, paths: ServerPaths): Promise<ArchiveManifest> {
  if (existsSync(join(paths.dataDir, 'berth.sqlite'))) throw new Error(`${paths.dataDir} holds a store already: a restore goes onto a fresh server (uninstall with --purge first, or another server)`);
  const sums = `${archive}.sha256`;
  if (existsSync(sums)) {
    const want = (await readFile(sums, 'utf8')).trim().split(/\s+/)[0];
    const got = await sha256File(archive);
    if (want !== got) throw new Error(`checksum mismatch for ${archive}: ${sums} says ${want}, the file is ${got}`);
  }
  await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
  const scratch = await mkdtemp(join(paths.dataDir, '.restore-'));
  try {
    // decrypted whole and its tag checked before tar reads a byte: a wrong passphrase or a changed
    // byte is told as such, not as whatever tar makes of the garbage
    const opened = join(scratch, '.archive.tar.gz');
    await decryptFile(archive, passphrase, createWriteStream(opened, { mode: 0o600 }));
    await tar(['-C', scratch, '-xzf', opened, '--no-same-owner']).done;
    await rm(opened);
    const manifest = JSON.parse(await readFile(join(scratch, 'manifest.json'), 'utf8')) as ArchiveManifest;
    if (manifest.format !== ARCHIVE_FORMAT) throw new Error(`the archive's format ${String(manifest.format)} is not one this release reads (${ARCHIVE_FORMAT})`);
    if (!existsSync(join(scratch, 'data/berth.sqlite'))) throw new Error('the archive holds no store (data/berth.sqlite)');
    for (const name of await readdir(join(scratch, 'data'))) {
      await rename(join(scratch, 'data', name), join(paths.dataDir, name));
      await chmod(join(paths.dataDir, name), 0o600);
    }
    if (existsSync(join(scratch, 'etc'))) {
      await mkdir(paths.etcDir, { recursive: true, mode: 0o700 });
      for (const name of await readdir(join(scratch, 'etc'))) await cp(join(scratch, 'etc', name), join(paths.etcDir, name), { recursive: true });
    }
    const owner = await caddyOwner();
    for (const [from, to] of [
      ['caddy/config', '.config/caddy'],
      ['caddy/data', '.local/share/caddy'],
    ] as const) {
      if (!existsSync(join(scratch, from))) continue;
      const dest = join(paths.caddyHome, to);
      await rm(dest, { recursive: true, force: true });
      await mkdir(join(dest, '..'), { recursive: true });
      await cp(join(scratch, from), dest, { recursive: true });
      if (owner) await chownTree(dest, owner);
    }
    return manifest;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
