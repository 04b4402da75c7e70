// The source checkout step of a deployment: a shallow clone of one branch into an empty
// directory. git runs from an argv array with an environment that cannot prompt, speaks only
// http(s) (never file://, a local path, ssh or ext::), sees none of the host's git identity (no
// system or global gitconfig, no ~/.ssh, agent or ~/.netrc: HOME is an empty directory of its
// own) and carries the access token only as an HTTP header, so the token never reaches argv, a
// URL, the build log or an error message. A clone is bounded in size and time; one over either
// is killed and leaves nothing behind. Running git itself: git-run.ts.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRepoFullName, isHttpGitUrl } from '../core/source.js';
import { BuildError } from '../core/build-error.js';
import type { ClonePin } from './clone-reach.js';
import { CHECKOUT_ABORTED, forwardTo, redactLine, runGit, sizeOver, type GitRun } from './git-run.js';

export interface CloneLimits {
  /** Bytes the clone (objects and checked-out files) may take on disk (BERTH_CLONE_MAX_MB). */
  maxBytes: number;
  /** How long the checkout (the clone, and fetching a pushed commit) may take. */
  timeoutMs: number;
  /** Where that limit comes from, for the failure line; BERTH_CLONE_TIMEOUT when omitted. */
  timeoutSource?: string;
}

export const DEFAULT_CLONE_LIMITS: CloneLimits = { maxBytes: 2048 * 1024 * 1024, timeoutMs: 600_000 };

export interface CheckoutRequest {
  /** Full clone URL: http:// or https:// only (anything else is refused here too, for rows stored before the rule). */
  repoUrl: string;
  branch: string; // already validated (never starts with '-')
  /** A commit of that branch to build instead of its tip (a webhook's pushed sha; 40 hex digits). */
  commit?: string | null;
  token: string | null; // access token for HTTP(S) clones; null for none
  dest: string; // an existing empty directory to clone into
  signal?: AbortSignal; // abort kills git and rejects with BuildError('checkout aborted')
  log: (line: string) => void; // progress lines for the user's build log
  limits?: CloneLimits; // DEFAULT_CLONE_LIMITS when omitted
  /**
   * For a clone within a reach (builder/clone-reach.ts): the checked address git must connect to
   * (http.curloptResolve) and no redirects. Null or omitted: the URL as given (a key over all projects).
   */
  pin?: ClonePin | null;
}

export interface CheckoutResult {
  commitSha: string;
}

/** Transports git may use; anything else (file, ssh, git, ext::, fd::, remote helpers) is refused by git itself. */
const ALLOWED_PROTOCOLS = 'https:http';
/** Variables of the daemon's environment a clone keeps: the search path, locale, temp dir, CA bundle and the host's HTTP proxy. Nothing else (no HOME, SSH_AUTH_SOCK, GIT_*, XDG_*). */
const KEPT_ENV = /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|SSL_CERT_FILE|SSL_CERT_DIR|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY|all_proxy|ALL_PROXY)$/;
const COMMIT_SHA = /^[0-9a-f]{40}$/;
const ACCESS_DENIED = [
  /terminal prompts disabled/i,
  /authentication failed/i,
  /repository .* not found/i,
  /could not read from remote repository/i,
  /permission denied \(/i,
  /access denied/i,
  /requested URL returned error: 40[134]/i,
];

/** The clone URL of a service: `${gitBaseUrl}/${owner}/${name}.git` for owner/name, else repoUrl as-is. */
export function cloneUrlFor(source: { repoFullName: string | null; repoUrl: string | null }, gitBaseUrl: string): string {
  if (source.repoFullName !== null && isOwnerName(source.repoFullName)) {
    return `${gitBaseUrl.replace(/\/+$/, '')}/${source.repoFullName}.git`;
  }
  if (source.repoUrl) return source.repoUrl;
  throw new BuildError('the service has no repository to clone');
}

export async function checkout(req: CheckoutRequest): Promise<CheckoutResult> {
  const secrets = req.token ? [req.token, basicCredentials(req.token)] : [];
  const redact = (line: string): string => redactLine(line, secrets);
  if (!isHttpGitUrl(req.repoUrl)) {
    throw new BuildError(`the repository URL ${redact(req.repoUrl.slice(0, 200))} is not http(s); Berth clones only https:// and http:// URLs (or owner/name)`);
  }
  const limits = req.limits ?? DEFAULT_CLONE_LIMITS;
  const home = mkdtempSync(join(tmpdir(), 'berth-git-home-'));
  try {
    const env = gitEnvironment(req.repoUrl, req.token, home, req.pin ?? null);
    req.log(`Cloning ${redact(req.repoUrl)} (branch ${req.branch})`);
    // one wall-clock limit over every git run of the checkout: over it, git's process group is killed
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), limits.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    try {
      return await cloneAndCheckOut(req, env, signal, limits, redact);
    } catch (err) {
      // only the run the limit stopped: a clone that failed on its own (too large) keeps its reason
      if (timeout.signal.aborted && !req.signal?.aborted && err instanceof BuildError && err.message === CHECKOUT_ABORTED) {
        emptyDir(req.dest);
        throw new BuildError(`git clone took longer than ${Math.round(limits.timeoutMs / 1000)} s (${limits.timeoutSource ?? 'BERTH_CLONE_TIMEOUT'}) and was stopped`);
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function cloneAndCheckOut(req: CheckoutRequest, env: NodeJS.ProcessEnv, signal: AbortSignal, limits: CloneLimits, redact: (line: string) => string): Promise<CheckoutResult> {
  let clone: GitRun;
  try {
    clone = await runGit(['clone', '--progress', '--depth', '1', '--single-branch', '--branch', req.branch, '--', req.repoUrl, req.dest], env, signal, forwardTo(req.log, redact), {
      dir: req.dest,
      maxBytes: limits.maxBytes,
    });
    if (clone.exitCode === 0 && (await sizeOver(req.dest, limits.maxBytes))) clone.tooLarge = true;
  } catch (err) {
    emptyDir(req.dest);
    throw err;
  }
  if (clone.tooLarge) {
    emptyDir(req.dest);
    throw new BuildError(`the repository is larger than ${megabytes(limits.maxBytes)} MB on disk (BERTH_CLONE_MAX_MB); the clone was stopped and removed`);
  }
  if (clone.exitCode !== 0) throw new BuildError(cloneFailure(clone, redact));

  // the clone just wrote HEAD and its branch's ref: read them instead of running git once more
  let head = headOfClone(req.dest) ?? (await runGit(['-C', req.dest, 'rev-parse', 'HEAD'], env, signal, () => undefined));
  if (req.commit && head.exitCode === 0 && head.stdout.trim() !== req.commit) {
    // the branch moved on since the push: fetch exactly the pushed commit
    if (!COMMIT_SHA.test(req.commit)) throw new BuildError(`${req.commit.slice(0, 80)} is not a commit sha`);
    req.log(`The branch is at ${head.stdout.trim()} now; fetching the pushed commit ${req.commit}`);
    const fetched = await runGit(['-C', req.dest, 'fetch', '--quiet', '--depth', '1', 'origin', req.commit], env, signal, forwardTo(req.log, redact));
    if (fetched.exitCode !== 0) throw new BuildError(`the pushed commit ${req.commit} could not be fetched from the repository`);
    const switched = await runGit(['-C', req.dest, 'checkout', '--quiet', '--detach', req.commit], env, signal, forwardTo(req.log, redact));
    if (switched.exitCode !== 0) throw new BuildError(`the pushed commit ${req.commit} could not be checked out`);
    head = await runGit(['-C', req.dest, 'rev-parse', 'HEAD'], env, signal, () => undefined);
  }
  const commitSha = head.stdout.trim();
  if (head.exitCode !== 0 || !COMMIT_SHA.test(commitSha)) {
    throw new BuildError('git rev-parse HEAD did not return a commit sha after the clone');
  }
  req.log(`Checked out ${commitSha}`);
  return { commitSha };
}

/**
 * The commit a fresh clone checked out, read from the files git itself just wrote in `.git` (none
 * of them comes from the repository): HEAD is `ref: refs/heads/<branch>` with that branch's ref a
 * loose file, or a commit sha (a tag was cloned). Null when it is anything else (a packed ref, a
 * link, an unexpected shape): the caller asks `git rev-parse` then.
 */
export function headOfClone(dir: string): GitRun | null {
  const read = (path: string): string | null => {
    try {
      if (!lstatSync(path).isFile()) return null;
      return readFileSync(path, 'utf8').trim();
    } catch {
      return null;
    }
  };
  const gitDir = join(dir, '.git');
  const head = read(join(gitDir, 'HEAD'));
  const ref = head && /^ref: (refs\/heads\/[A-Za-z0-9._/-]+)$/.exec(head)?.[1];
  const sha = ref ? (ref.split('/').includes('..') ? null : read(join(gitDir, ref))) : head;
  return sha && COMMIT_SHA.test(sha) ? { exitCode: 0, signal: null, stdout: `${sha}\n`, stderrLines: [] } : null;
}

function megabytes(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}

/** Removes whatever a stopped clone left in `dir` (the directory itself stays, as the caller made it). */
function emptyDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
}

function isOwnerName(value: string): boolean {
  try {
    checkRepoFullName(value);
    return true;
  } catch {
    return false;
  }
}

function basicCredentials(token: string): string {
  return Buffer.from(`x-access-token:${token}`, 'utf8').toString('base64');
}

/**
 * Only the harmless part of the daemon's environment (KEPT_ENV: never a GIT_*, SSH_AUTH_SOCK or
 * HOME), plus the settings that make git safe to run unattended on a user-supplied URL: no
 * system or global gitconfig, and HOME an empty directory, so neither ~/.gitconfig, ~/.netrc,
 * ~/.git-credentials nor ~/.ssh of the host can lend the clone an identity.
 */
export function gitEnvironment(url: string, token: string | null, home: string, pin: ClonePin | null = null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (KEPT_ENV.test(key)) env[key] = value;
  const config: [string, string][] = [];
  if (token && isHttpGitUrl(url)) {
    config.push(['http.extraHeader', `Authorization: Basic ${basicCredentials(token)}`]);
  }
  // After a redirect git re-bases every later request on the new host and sends the extra
  // header there too (curl only drops it on the redirected GET itself): with a token, no
  // redirects, so the token only ever goes to the host the user configured. Within a reach, no
  // redirects either: the checked host is the only one the clone talks to.
  if ((token && isHttpGitUrl(url)) || pin) config.push(['http.followRedirects', 'false']);
  // the address checked for the reach, so a second lookup (DNS rebinding) cannot move the clone
  if (pin?.resolve) config.push(['http.curloptResolve', pin.resolve]);
  // An empty helper resets the list: the host's stored credentials are never offered to a user's URL.
  config.push(['credential.helper', '']);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_COUNT: String(config.length),
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '', // set but empty: git then neither runs core.askPass nor SSH_ASKPASS
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS,
    // never used (ssh is not an allowed protocol); set so no ssh could ever reach an agent or key
    GIT_SSH_COMMAND: 'ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none',
  };
}

/** A message for a failed clone, from git's last meaningful stderr line. Never holds a secret. */
function cloneFailure(run: GitRun, redact: (line: string) => string): string {
  const fatal = [...run.stderrLines].reverse().find((l) => /^(fatal|error):/i.test(l));
  const last = fatal ?? run.stderrLines[run.stderrLines.length - 1];
  if (run.stderrLines.some((l) => ACCESS_DENIED.some((re) => re.test(l)))) return 'repository not found or access denied';
  if (run.stderrLines.some((l) => /returned error: 30[1278]/.test(l))) {
    return 'git clone failed: the repository URL redirects elsewhere; with an access token, or for a key over selected projects, Berth clones only from the exact URL given, so use the new URL';
  }
  if (last) return `git clone failed: ${redact(last.replace(/^(fatal|error):\s*/i, ''))}`;
  if (run.signal) return `git clone was killed by ${run.signal}`;
  return `git clone failed with exit code ${run.exitCode ?? 'unknown'}`;
}
