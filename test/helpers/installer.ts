// Driving the VPS installer from a test: where it installs, running install.sh (blocking or not)
// and reading its result lines, building release bundles, and looking at the machine (listening
// ports, file trees, supervisor pid files), showing its logs and removing what a run left. Used by
// test/installer/install.test.ts.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-root.js';

export const INSTALL = join(REPO_ROOT, 'installers/install.sh');
export const OPT = '/opt/berth';
export const ETC = '/etc/berth';
export const DATA = '/var/lib/berth';
export const LOG = '/var/log/berth-install.log';
export const SUPERVISOR_LOGS = '/var/log/berth';
export const RUN = '/run/berth';
export const CLI_LINK = '/usr/local/bin/berth';
export const CADDY_HOME = '/var/lib/caddy';
export const CADDY_AUTOSAVE = '/var/lib/caddy/.config/caddy/autosave.json';
export const PORTS = [80, 443, 4310, 4311, 2019];
export const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
export const PREVIOUS = `${VERSION}-previous.1`;

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function install(...args: string[]): Run {
  const r = spawnSync('bash', [INSTALL, ...args], { encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** install.sh without blocking the event loop (for a test that serves the bundle itself). */
export function installAsync(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile('bash', [INSTALL, ...args], { encoding: 'utf8', timeout: 300_000 }, (err, stdout, stderr) => {
      resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The KEY=value lines a script reads from the installer's output. */
export function resultLines(out: string): Record<string, string> {
  return Object.fromEntries(
    out
      .split('\n')
      .filter((l) => /^BERTH_[A-Z0-9_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** Ports in LISTEN state on this machine (this network namespace), with their local addresses. */
export function listening(): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] !== '0A') continue;
      const [addr, port] = f[1]!.split(':') as [string, string];
      const p = parseInt(port, 16);
      out.set(p, [...(out.get(p) ?? []), addr]);
    }
  }
  return out;
}

/** Every entry under the given roots: type, mode, size, inode, mtime and link target. */
export function snapshot(...roots: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (path: string) => {
    const st = lstatSync(path);
    out.set(path, `${st.mode}:${st.size}:${st.ino}:${st.mtimeMs}:${st.isSymbolicLink() ? readlinkSync(path) : ''}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  for (const root of roots) if (existsSync(root)) walk(root);
  return out;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function readPid(name: string): number | null {
  const file = join(RUN, name);
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : null;
}

function buildBundle(version: string, out: string): string {
  const res = spawnSync('bash', [join(REPO_ROOT, 'installers/release.sh'), '--version', version, '--out', out], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 600_000 });
  if (res.status !== 0) throw new Error(`release.sh failed:\n${res.stderr}`);
  return res.stdout.trim().split('\n').pop()!;
}

let bundles: { previous: string; current: string } | null = null;

/**
 * Two release bundles of this checkout, built once per test run and shared by the installer suites
 * (the one on this machine and the one on a systemd VPS): `previous` (version PREVIOUS, what an
 * upgrade starts from) and `current` (VERSION). Removed when the process exits.
 */
export function releaseBundles(): { previous: string; current: string } {
  if (bundles) return bundles;
  const dir = mkdtempSync(join(tmpdir(), 'berth-bundles-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const t0 = Date.now();
  bundles = { previous: buildBundle(PREVIOUS, join(dir, 'previous')), current: buildBundle(VERSION, join(dir, 'current')) };
  console.log(`      two release bundles built in ${Math.round((Date.now() - t0) / 1000)} s`);
  return bundles;
}

/**
 * A release bundle made broken on purpose from `bundle`: version `version`, a new build id, and a
 * daemon that exits at start as a failed migration would (the installer's health check never
 * passes) after renaming every project in the store, as a migration that fails half-way. Beside it, its own SHA256SUMS and install.sh, as a published release has. Its path.
 */
export function brokenBundle(bundle: string, version: string, out: string): string {
  const stage = mkdtempSync(join(tmpdir(), 'berth-broken-'));
  try {
    execFileSync('tar', ['-xzf', bundle, '-C', stage]);
    const [top] = readdirSync(stage);
    const name = `berth-${version}-linux-x64`;
    renameSync(join(stage, top!), join(stage, name));
    const root = join(stage, name);
    writeFileSync(join(root, 'BUNDLE'), readFileSync(join(root, 'BUNDLE'), 'utf8').replace(/^BERTH_VERSION=.*$/m, `BERTH_VERSION=${version}`));
    writeFileSync(join(root, 'BUILD_ID'), `${randomBytes(8).toString('hex')}\n`);
    const main = join(root, 'dist/daemon/main.js');
    // like a migration that changed the store half-way and then failed: the rollback must undo the change
    const broken = [
      "import brokenSqlite from 'sqlite3';",
      'const brokenDb = new brokenSqlite.Database(`${process.env.BERTH_DATA_DIR}/berth.sqlite`);',
      'await new Promise((done) => brokenDb.exec("UPDATE projects SET name = \'renamed by a broken migration\'", done));',
      "console.error('berth: migration 9999 failed (a release broken on purpose by the test suite)');",
      'process.exit(1);',
    ].join('\n');
    writeFileSync(main, `${broken}\n${readFileSync(main, 'utf8')}`);
    mkdirSync(out, { recursive: true });
    const file = join(out, `${name}.tar.gz`);
    execFileSync('tar', ['-C', stage, '--owner=0', '--group=0', '--numeric-owner', '-czf', file, name]);
    const sum = createHash('sha256').update(readFileSync(file)).digest('hex');
    writeFileSync(join(out, 'SHA256SUMS'), `${sum}  ${name}.tar.gz\n`);
    copyFileSync(join(root, 'installers/install.sh'), join(out, 'install.sh'));
    return file;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** What the installer, the daemon and Caddy said, for a failed test (none of these logs holds a key). */
export function printLogTails(): void {
  for (const file of [LOG, join(SUPERVISOR_LOGS, 'berth.log'), join(SUPERVISOR_LOGS, 'caddy.log')]) {
    if (existsSync(file))
      console.log(
        `      --- last lines of ${file}\n${readFileSync(file, 'utf8')
          .split('\n')
          .slice(-25)
          .map((l) => `      ${l.slice(0, 400)}`)
          .join('\n')}`,
      );
  }
}

/**
 * Removes what the suite left. `bundle`: the one to purge with, null when no install was started;
 * `caddyHomeBefore`: the names Caddy's home held before the suite ran.
 */
export function removeLeftovers(bundle: string | null, caddyHomeBefore: string[]): void {
  // Whatever a failed test left: purge through the installer, then anything of ours still running.
  if (bundle !== null && (existsSync(OPT) || existsSync(ETC) || existsSync(DATA) || existsSync(RUN))) {
    install('--purge', '--yes', '--from', bundle);
  }
  for (const name of ['berth.pid', 'caddy.pid', 'berth.child', 'caddy.child']) {
    const pid = readPid(name);
    if (pid && pidAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const p of [OPT, ETC, DATA, RUN, SUPERVISOR_LOGS, LOG, CADDY_AUTOSAVE]) rmSync(p, { recursive: true, force: true });
  if (existsSync(CLI_LINK) && lstatSync(CLI_LINK).isSymbolicLink() && readlinkSync(CLI_LINK).startsWith(OPT)) rmSync(CLI_LINK);
  // Caddy's state that appeared in its home while this suite ran (its CA, certificates, autosave).
  if (existsSync(CADDY_HOME)) for (const name of readdirSync(CADDY_HOME)) if (!caddyHomeBefore.includes(name)) rmSync(join(CADDY_HOME, name), { recursive: true, force: true });
}
