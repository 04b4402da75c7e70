// A real git server for tests: `git http-backend` run as CGI behind a Node http server on
// loopback, so checkout code is exercised over git's smart HTTP protocol (and its auth) exactly
// as it would be against a hosted forge, without the network.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** What a push changed: what git hosts put in their push webhook payloads. */
export interface PushInfo {
  repo: `${string}/${string}`;
  branch: string;
  /** The branch's previous commit (40 zeros when the push created it). */
  before: string;
  after: string;
  message: string;
  cloneUrl: string;
  files: string[];
}

export interface GitServer {
  /** e.g. http://127.0.0.1:41234, usable as BERTH_GIT_BASE_URL */
  baseUrl: string;
  /** Creates (or adds a commit to) bare repo <owner>/<name>.git on `branch` with these files; returns the commit sha. A path ending in `#x` is written executable without the suffix; one ending in `#link` becomes a symbolic link (without the suffix) whose target is the content. */
  commit(repo: `${string}/${string}`, files: Record<string, string>, opts?: { branch?: string; message?: string }): Promise<string>;
  urlOf(repo: `${string}/${string}`): string;
  /** Called after each commit() landed, as a git host calls its push webhooks. */
  onPush: ((push: PushInfo) => Promise<void>) | null;
  /** Requests seen, for asserting what the client sent. */
  requests: { method: string; url: string; authorization: string | undefined }[];
  stop(): Promise<void>;
}

// The helper's own git runs ignore the machine's git config (signing, hooks, default branch).
const ISOLATED_GIT_ENV = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Berth Test',
  GIT_AUTHOR_EMAIL: 'test@berth.invalid',
  GIT_COMMITTER_NAME: 'Berth Test',
  GIT_COMMITTER_EMAIL: 'test@berth.invalid',
};

function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  return { ...env, ...ISOLATED_GIT_ENV, ...extra };
}

/** Runs git to completion and returns its trimmed stdout; rejects with stderr on failure. */
function git(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8').trim());
      else reject(new Error(`git ${args.join(' ')} failed (${code}): ${Buffer.concat(err).toString('utf8')}`));
    });
  });
}

function repoParts(repo: string): { owner: string; name: string } {
  const [owner, name, ...rest] = repo.split('/');
  if (!owner || !name || rest.length > 0) throw new Error(`repo must be owner/name, got ${repo}`);
  return { owner, name };
}

async function ensureBareRepo(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
  await git(['init', '--quiet', '--bare', '--initial-branch=main'], path);
}

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    if (name.endsWith('#link')) {
      const path = join(dir, name.slice(0, -'#link'.length));
      await mkdir(dirname(path), { recursive: true });
      await rm(path, { recursive: true, force: true });
      await symlink(content, path);
      continue;
    }
    const executable = name.endsWith('#x');
    const path = join(dir, executable ? name.slice(0, -2) : name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    await chmod(path, executable ? 0o755 : 0o644);
  }
}

/** Commits `files` on top of `branch` of the bare repo (if it exists) and pushes by file path. */
async function commitTo(bare: string, files: Record<string, string>, branch: string, message: string): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'berth-git-work-'));
  try {
    await git(['init', '--quiet', `--initial-branch=${branch}`], work);
    const heads = await git(['ls-remote', '--heads', '--', bare, branch], work);
    if (heads !== '') {
      await git(['fetch', '--quiet', '--', bare, branch], work);
      await git(['reset', '--quiet', '--hard', 'FETCH_HEAD'], work);
    }
    await writeFiles(work, files);
    await git(['add', '--all'], work);
    await git(['commit', '--quiet', '--allow-empty', '-m', message], work);
    await git(['push', '--quiet', '--', bare, `HEAD:refs/heads/${branch}`], work);
    return await git(['rev-parse', 'HEAD'], work);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = req.headers.authorization ?? '';
  const match = /^Basic\s+(\S+)$/i.exec(header);
  if (!match?.[1]) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && decoded.slice(colon + 1) === token;
}

function cgiEnv(req: IncomingMessage, projectRoot: string): NodeJS.ProcessEnv {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const extra: Record<string, string> = {
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ''),
    REQUEST_METHOD: req.method ?? 'GET',
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
  };
  const headerVars: [string, string | undefined][] = [
    ['CONTENT_TYPE', req.headers['content-type']],
    ['CONTENT_LENGTH', req.headers['content-length']],
    ['HTTP_CONTENT_ENCODING', req.headers['content-encoding']],
    // protocol v2 is negotiated through this header
    ['HTTP_GIT_PROTOCOL', typeof req.headers['git-protocol'] === 'string' ? req.headers['git-protocol'] : undefined],
  ];
  for (const [key, value] of headerVars) if (value !== undefined) extra[key] = value;
  return gitEnv(extra);
}

/** Splits a CGI header block into a status code and headers. */
function parseCgiHeaders(block: string): { status: number; headers: [string, string][] } {
  let status = 200;
  const headers: [string, string][] = [];
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers.push([name, value]);
  }
  return { status, headers };
}

function headerEnd(buf: Buffer): { at: number; length: number } | null {
  const crlf = buf.indexOf('\r\n\r\n');
  if (crlf >= 0) return { at: crlf, length: 4 };
  const lf = buf.indexOf('\n\n');
  return lf >= 0 ? { at: lf, length: 2 } : null;
}

/** Runs one request through `git http-backend`, streaming the body both ways. */
function serveCgi(req: IncomingMessage, res: ServerResponse, projectRoot: string): void {
  const child = spawn('git', ['http-backend'], { env: cgiEnv(req, projectRoot), stdio: ['pipe', 'pipe', 'pipe'] });
  let pending: Buffer = Buffer.alloc(0);
  let headersSent = false;
  req.pipe(child.stdin);
  child.stdin.on('error', () => undefined); // the backend may answer before reading everything
  child.stderr.resume();
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      res.write(chunk);
      return;
    }
    pending = Buffer.concat([pending, chunk]);
    const end = headerEnd(pending);
    if (!end) return;
    const { status, headers } = parseCgiHeaders(pending.subarray(0, end.at).toString('latin1'));
    res.writeHead(status, headers.flat());
    headersSent = true;
    res.write(pending.subarray(end.at + end.length));
  });
  child.on('error', () => res.destroy());
  child.on('close', (code) => {
    if (!headersSent) res.writeHead(code === 0 ? 200 : 500);
    res.end();
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startGitServer(opts: { token?: string } = {}): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), 'berth-git-server-'));
  const requests: GitServer['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    if (!authorized(req, opts.token)) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    serveCgi(req, res, root);
  });
  const port = await listen(server);
  const baseUrl = `http://127.0.0.1:${port}`;
  const barePath = (repo: string): string => {
    const { owner, name } = repoParts(repo);
    return join(root, owner, `${name}.git`);
  };

  const gitServer: GitServer = {
    baseUrl,
    requests,
    onPush: null,
    urlOf: (repo) => {
      const { owner, name } = repoParts(repo);
      return `${baseUrl}/${owner}/${name}.git`;
    },
    commit: async (repo, files, commitOpts = {}) => {
      const bare = barePath(repo);
      await ensureBareRepo(bare);
      const branch = commitOpts.branch ?? 'main';
      const message = commitOpts.message ?? 'test commit';
      const before = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], bare).catch(() => '0'.repeat(40));
      const after = await commitTo(bare, files, branch, message);
      const onPush = gitServer.onPush;
      if (onPush) await onPush({ repo, branch, before: before || '0'.repeat(40), after, message, cloneUrl: gitServer.urlOf(repo), files: Object.keys(files).map((f) => f.replace(/#(x|link)$/, '')) });
      return after;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
  return gitServer;
}
