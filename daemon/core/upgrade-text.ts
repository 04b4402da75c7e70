// Reading what the installer's upgrader writes (KEY=value lines, its log) and what the release feed
// answers, as untrusted text: lenient about form, strict about size and characters, and never
// throwing on anything a file can hold. Also the checks on a bundle's source and on versions.
import { InvalidInput } from './errors.js';

/** One value of a KEY=value file: one line, at most this long. */
const VALUE_MAX = 1000;
/** One log line shown: at most this long. */
const LOG_LINE_MAX = 2000;
/** A bundle's source: at most this long. */
export const SOURCE_MAX = 2048;

// every control character but tab; DEL and the C1 range too
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** Control characters shown as U+FFFD, tabs as a space: text that is safe in a terminal and a page. */
export function oneLine(raw: string, max: number): string {
  const s = raw.replace(/\t/g, ' ').replace(CONTROL, '\uFFFD');
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** KEY=value lines: blank lines, comments and lines without `=` skipped, keys upper-case, the last one of a key wins. */
export function parseKeyValues(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const eq = line.indexOf('=');
    if (eq <= 0 || line.startsWith('#')) continue;
    const key = line.slice(0, eq).trim();
    if (!/^[A-Z][A-Z0-9_]{0,63}$/.test(key)) continue;
    out.set(key, oneLine(line.slice(eq + 1).trim(), VALUE_MAX));
  }
  return out;
}

/** A value, or null when it is missing or empty. */
export function valueOf(kv: Map<string, string>, key: string): string | null {
  const v = kv.get(key);
  return v === undefined || v === '' ? null : v;
}

/** An ISO time as the API writes it, or null for anything that is not a time. */
export function timeOf(kv: Map<string, string>, key: string): string | null {
  const v = valueOf(kv, key);
  if (v === null || v.length > 40) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** The last `max` lines of a log's tail (a tail that starts mid-line loses that first part). */
export function logLines(text: string, truncated: boolean, max: number): string[] {
  const lines = text.split('\n');
  if (truncated) lines.shift();
  if (lines.at(-1) === '') lines.pop();
  return lines.slice(-max).map((l) => oneLine(l.replace(/\r$/, ''), LOG_LINE_MAX));
}

/**
 * Where a bundle comes from: an https:// URL, or an absolute path on the server with no `..`;
 * one line, at most 2048 characters. Throws InvalidInput (400) with the reason.
 */
export function checkUpgradeSource(raw: string, field = 'from'): string {
  const from = raw.trim();
  if (from === '') throw new InvalidInput(`${field} must be an https:// URL or an absolute path to a release bundle on the server`);
  if (from.length > SOURCE_MAX) throw new InvalidInput(`${field} must be at most ${SOURCE_MAX} characters`);
  if (new RegExp(CONTROL.source).test(from)) throw new InvalidInput(`${field} must be one line without control characters`);
  if (from.startsWith('/')) {
    if (from.split('/').includes('..')) throw new InvalidInput(`${field} must be an absolute path without ".." segments, got "${from.slice(0, 200)}"`);
    return from;
  }
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    throw new InvalidInput(`${field} must be an https:// URL or an absolute path (starting with /), got "${from.slice(0, 200)}"`);
  }
  if (url.protocol !== 'https:') throw new InvalidInput(`${field} must be an https:// URL (the bundle is checked against its checksum, but not fetched in the clear), got ${url.protocol}`);
  if (url.username || url.password) throw new InvalidInput(`${field} must not carry credentials`);
  return from;
}

/**
 * Folders whose files apps or other users can write (Berth's data dir: backups, builds, config
 * files; Docker's volumes and layers; the world-writable temporary folders): a bundle there is
 * never taken, whatever BERTH_UPGRADE_SOURCES says.
 */
export function tenantWritableDirs(dataDir: string): string[] {
  return [dataDir, '/var/lib/docker', '/tmp', '/var/tmp', '/dev/shm'];
}

/** `path` is `dir` or inside it (both absolute, without `..`). */
function within(path: string, dir: string): boolean {
  const d = dir.replace(/\/+$/, '');
  return d === '' || path === d || path.startsWith(`${d}/`);
}

/**
 * Whether an upgrade asked for through the API may come from `from` (checked by checkUpgradeSource):
 * an installed release runs as root, so a key must not be able to choose what it installs. It must
 * be one of `sources` (BERTH_UPGRADE_SOURCES, which install.sh sets to where Berth was installed
 * from), or inside one of them: a source ending in `/` is a folder or URL prefix, any other matches
 * itself and what is below it. Null when allowed, else why not (one sentence).
 */
export function upgradeSourceRefusal(from: string, sources: readonly string[], refusedDirs: readonly string[]): string | null {
  if (from.startsWith('/')) {
    const dir = refusedDirs.find((d) => within(from, d) || within(d, from));
    if (dir !== undefined) return `a bundle in ${dir} is never installed: apps or other users can write there`;
  }
  const allowed = sources.some((s) => from === s || from.startsWith(s.endsWith('/') ? s : `${s}/`));
  if (allowed) return null;
  const list = sources.length === 0 ? 'none is set' : `it allows ${sources.join(', ')}`;
  return `${from.slice(0, 200)} is not an upgrade source this server accepts (BERTH_UPGRADE_SOURCES in /etc/berth/berth.env: ${list}); to allow it, add it there as root on the server and restart berth`;
}

/** MAJOR.MINOR.PATCH with an optional leading v and -prerelease (build metadata ignored); null when it is not one. */
function semver(v: string): { core: [number, number, number]; pre: string[] } | null {
  const m = /^v?(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-([0-9A-Za-z.-]{1,64}))?(?:\+[0-9A-Za-z.-]{1,64})?$/.exec(v.trim());
  if (!m) return null;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] };
}

export function isVersion(v: string): boolean {
  return semver(v) !== null;
}

/** Semantic versioning's order: >0 when a is newer than b; null when either is not a version. */
export function compareVersions(a: string, b: string): number | null {
  const x = semver(a);
  const y = semver(b);
  if (!x || !y) return null;
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i]! - y.core[i]!;
  // a release is newer than its prereleases
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined || q === undefined) return p === undefined ? -1 : 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}
