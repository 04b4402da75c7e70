// The checkout step against a real git over smart HTTP: that it clones what was asked, and that
// its security rules hold (token only as a header, never on argv, in logs or errors; no prompts;
// no ext:: transport; no token sent to a host it redirects to; abort leaves no git behind).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { BuildError } from '../../daemon/core/build-error.js';
import { checkout, cloneUrlFor, headOfClone, type CheckoutRequest } from '../../daemon/builder/checkout.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';

const TOKEN = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const basic = (password: string): string => `Basic ${Buffer.from(`x-access-token:${password}`).toString('base64')}`;

let scratch: string;
const freshDir = (): string => mkdtempSync(join(scratch, 'dest-'));

interface Outcome {
  sha: string | null;
  error: unknown;
  logs: string[];
  ms: number;
}

/** Runs checkout and records everything it said, success or not. */
async function run(req: Omit<CheckoutRequest, 'log' | 'dest'> & { dest?: string }): Promise<Outcome> {
  const logs: string[] = [];
  const started = Date.now();
  try {
    const { commitSha } = await checkout({ dest: freshDir(), ...req, log: (l) => logs.push(l) });
    return { sha: commitSha, error: null, logs, ms: Date.now() - started };
  } catch (error) {
    return { sha: null, error, logs, ms: Date.now() - started };
  }
}

function expectBuildError(outcome: Outcome, message: RegExp | string): BuildError {
  expect(outcome.error, `expected a BuildError, logs: ${outcome.logs.join(' | ')}`).to.be.instanceOf(BuildError);
  const err = outcome.error as BuildError;
  if (typeof message === 'string') expect(err.message).to.equal(message);
  else expect(err.message).to.match(message);
  return err;
}

async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function realGitPath(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'git');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error('git not found on PATH');
}

/** Command lines of every live process on this machine (Linux /proc). */
function processCommandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // exited meanwhile
    }
  }
  return lines;
}

async function waitFor(predicate: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return predicate();
}

function listenOnLoopback(server: HttpServer | TcpServer): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('checkout (unit, real git)', () => {
  let pub: GitServer;
  let priv: GitServer;
  let mainSha: string;
  let devSha: string;
  let privateSha: string;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'berth-checkout-test-'));
    pub = await startGitServer();
    priv = await startGitServer({ token: TOKEN });
    await pub.commit('acme/app', { 'README.md': 'first\n' });
    mainSha = await pub.commit('acme/app', { 'src/index.js': 'console.log(1)\n', 'start.sh#x': '#!/bin/sh\necho hi\n' }, { message: 'second' });
    devSha = await pub.commit('acme/app', { 'DEV.md': 'dev only\n' }, { branch: 'feature/dev' });
    privateSha = await priv.commit('acme/secret', { 'secret.txt': 'classified\n' });
  });

  after(async () => {
    await pub.stop();
    await priv.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('clones a branch by URL and returns the commit sha of its tip, with files and modes', async () => {
    const dest = freshDir();
    const out = await run({ repoUrl: pub.urlOf('acme/app'), branch: 'main', token: null, dest });
    expect(out.error).to.equal(null);
    expect(out.sha).to.equal(mainSha);
    expect(readFileSync(join(dest, 'README.md'), 'utf8')).to.equal('first\n');
    expect(readFileSync(join(dest, 'src/index.js'), 'utf8')).to.equal('console.log(1)\n');
    expect(statSync(join(dest, 'start.sh')).mode & 0o111).to.not.equal(0);
    expect(existsSync(join(dest, 'DEV.md'))).to.equal(false);
  });

  it('writes clean log lines: no carriage returns, no blank lines, no trailing padding', async () => {
    const out = await run({ repoUrl: pub.urlOf('acme/app'), branch: 'main', token: null });
    expect(out.logs.length).to.be.greaterThan(1);
    for (const line of out.logs) {
      expect(line).to.not.match(/[\r\n]/);
      expect(line.trim()).to.not.equal('');
      expect(line).to.equal(line.trimEnd());
    }
  });

  it('clones a non-default branch and only that branch', async () => {
    const dest = freshDir();
    const out = await run({ repoUrl: pub.urlOf('acme/app'), branch: 'feature/dev', token: null, dest });
    expect(out.sha).to.equal(devSha);
    expect(readFileSync(join(dest, 'DEV.md'), 'utf8')).to.equal('dev only\n');
    expect(existsSync(join(dest, 'src'))).to.equal(false);
  });

  it('an unknown branch fails with a BuildError that names the branch', async () => {
    const out = await run({ repoUrl: pub.urlOf('acme/app'), branch: 'nope', token: null });
    expectBuildError(out, 'git clone failed: Remote branch nope not found in upstream origin');
  });

  it('a missing repository fails as not found or access denied', async () => {
    const out = await run({ repoUrl: pub.urlOf('acme/missing'), branch: 'main', token: null });
    expectBuildError(out, 'repository not found or access denied');
  });

  it('a private repository without a token fails quickly instead of prompting for a password', async () => {
    const out = await run({ repoUrl: priv.urlOf('acme/secret'), branch: 'main', token: null });
    expectBuildError(out, 'repository not found or access denied');
    expect(out.ms).to.be.lessThan(10_000);
  });

  it('a private repository with a wrong token fails as access denied', async () => {
    const out = await run({ repoUrl: priv.urlOf('acme/secret'), branch: 'main', token: 'not-the-token' });
    expectBuildError(out, 'repository not found or access denied');
  });

  it('a private repository with the token clones, sending it only as a Basic Authorization header', async () => {
    priv.requests.length = 0;
    const out = await run({ repoUrl: priv.urlOf('acme/secret'), branch: 'main', token: TOKEN });
    expect(out.error).to.equal(null);
    expect(out.sha).to.equal(privateSha);
    expect(priv.requests.length).to.be.greaterThan(0);
    for (const r of priv.requests) {
      expect(r.authorization).to.equal(basic(TOKEN));
      expect(r.url).to.not.include(TOKEN);
    }
  });

  it('the token never appears on the argv of any git process, in log lines or in error messages', async () => {
    const bin = mkdtempSync(join(scratch, 'bin-'));
    const argvLog = join(bin, 'argv.log');
    const traceLog = join(bin, 'trace.log');
    // A git first on PATH that records its argv, and turns on GIT_TRACE so git's own child
    // processes (git-remote-http, index-pack...) have their argv recorded too.
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nGIT_TRACE='${traceLog}' exec '${realGitPath()}' "$@"\n`, { mode: 0o755 });
    const outcomes = await withEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` }, async () => [
      await run({ repoUrl: priv.urlOf('acme/secret'), branch: 'main', token: TOKEN }),
      await run({ repoUrl: priv.urlOf('acme/secret'), branch: 'nope', token: TOKEN }),
      await run({ repoUrl: priv.urlOf('acme/missing'), branch: 'main', token: TOKEN }),
    ]);
    expect(outcomes[0]?.sha).to.equal(privateSha);
    expectBuildError(outcomes[1]!, /Remote branch nope not found/);
    expectBuildError(outcomes[2]!, 'repository not found or access denied');

    const argv = readFileSync(argvLog, 'utf8');
    const trace = readFileSync(traceLog, 'utf8');
    expect(argv).to.include('clone --progress --depth 1 --single-branch --branch main -- http://127.0.0.1:');
    expect(trace, 'the trace must cover the transport helper for this check to mean anything').to.match(/remote-https?/);
    const encoded = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    for (const secret of [TOKEN, encoded]) {
      expect(argv).to.not.include(secret);
      expect(trace).to.not.include(secret);
      for (const o of outcomes) {
        for (const line of o.logs) expect(line).to.not.include(secret);
        if (o.error instanceof Error) expect(o.error.message).to.not.include(secret);
      }
    }
  });

  it('credentials inside a clone URL are masked in log lines and errors', async () => {
    const url = pub.urlOf('acme/app').replace('http://', 'http://someone:hunter2@');
    const out = await run({ repoUrl: url, branch: 'nope', token: null });
    const err = expectBuildError(out, /Remote branch nope not found/);
    expect(err.message).to.not.include('hunter2');
    expect(out.logs.join('\n')).to.not.include('hunter2');
    expect(out.logs[0]).to.include('http://***@127.0.0.1:');
  });

  it('with a token, a redirect to another host is refused and that host never sees the token', async () => {
    const redirector = createHttpServer((req, res) => {
      res.writeHead(301, { Location: `${pub.baseUrl}${(req.url ?? '/').replace('/moved/', '/acme/')}` });
      res.end();
    });
    const port = await listenOnLoopback(redirector);
    try {
      pub.requests.length = 0;
      const out = await run({ repoUrl: `http://127.0.0.1:${port}/moved/app.git`, branch: 'main', token: TOKEN });
      expectBuildError(out, /redirect/);
      expect(pub.requests.filter((r) => r.authorization !== undefined)).to.deep.equal([]);
      // without a token there is nothing to leak, so ordinary redirects still work
      const open = await run({ repoUrl: `http://127.0.0.1:${port}/moved/app.git`, branch: 'main', token: null });
      expect(open.sha).to.equal(mainSha);
    } finally {
      redirector.closeAllConnections();
      redirector.close();
    }
  });

  it('refuses the ext:: transport even when the host git config allows it', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    writeFileSync(join(home, '.gitconfig'), '[protocol "ext"]\n\tallow = always\n');
    // Prove the setup is meaningful: with this HOME, plain git does run an ext:: command.
    const probe = join(home, 'probe-ran');
    spawnSync('git', ['ls-remote', `ext::sh -c touch% ${probe}`], { env: { PATH: process.env.PATH, HOME: home }, stdio: 'ignore' });
    expect(existsSync(probe), 'ext:: should run without Berth settings').to.equal(true);

    const marker = join(home, 'pwned');
    const out = await withEnv({ HOME: home }, () => run({ repoUrl: `ext::sh -c touch% ${marker}`, branch: 'main', token: null }));
    expectBuildError(out, /is not http\(s\); Berth clones only https:\/\/ and http:\/\/ URLs/);
    expect(existsSync(marker)).to.equal(false);
  });

  it('abort during a stalled clone kills every git process and rejects with "checkout aborted"', async () => {
    const sockets: Socket[] = [];
    const stall = createTcpServer((s) => sockets.push(s)); // accepts, never answers
    const port = await listenOnLoopback(stall);
    const marker = `127.0.0.1:${port}/`;
    try {
      const controller = new AbortController();
      const pending = run({ repoUrl: `http://${marker}acme/app.git`, branch: 'main', token: TOKEN, signal: controller.signal });
      const helperStarted = await waitFor(() => processCommandLines().some((c) => c.includes('remote-http') && c.includes(marker)), 10_000);
      expect(helperStarted, 'git-remote-http should be running against the stalled server').to.equal(true);
      const abortedAt = Date.now();
      controller.abort();
      const out = await pending;
      expectBuildError(out, 'checkout aborted');
      expect(Date.now() - abortedAt).to.be.lessThan(2000);
      const leftovers = processCommandLines().filter((c) => c.includes(marker));
      expect(leftovers).to.deep.equal([]);
    } finally {
      for (const s of sockets) s.destroy();
      stall.close();
    }
  });

  it('an already aborted signal rejects without running git', async () => {
    const controller = new AbortController();
    controller.abort();
    const dest = freshDir();
    const out = await run({ repoUrl: pub.urlOf('acme/app'), branch: 'main', token: null, dest, signal: controller.signal });
    expectBuildError(out, 'checkout aborted');
    expect(readdirSync(dest)).to.deep.equal([]);
  });
});

describe('cloneUrlFor (unit)', () => {
  it('builds <base>/<owner>/<name>.git for an owner/name repository', () => {
    expect(cloneUrlFor({ repoFullName: 'acme/app', repoUrl: null }, 'https://github.com')).to.equal('https://github.com/acme/app.git');
    expect(cloneUrlFor({ repoFullName: 'acme/app', repoUrl: null }, 'http://127.0.0.1:8080/')).to.equal('http://127.0.0.1:8080/acme/app.git');
  });

  it('returns a direct repoUrl as is', () => {
    expect(cloneUrlFor({ repoFullName: null, repoUrl: 'git@example.com:acme/app.git' }, 'https://github.com')).to.equal('git@example.com:acme/app.git');
    expect(cloneUrlFor({ repoFullName: 'not a repo name', repoUrl: 'https://example.com/x.git' }, 'https://github.com')).to.equal('https://example.com/x.git');
  });

  it('fails with a BuildError when there is nothing to clone', () => {
    expect(() => cloneUrlFor({ repoFullName: null, repoUrl: null }, 'https://github.com')).to.throw(BuildError);
  });
});

describe('headOfClone (unit)', () => {
  const SHA = 'a'.repeat(40);
  let dir: string;
  /** A fake clone: `.git` with the given files (a value starting with '->' is a link to that path). */
  function gitDir(files: Record<string, string>): string {
    dir = mkdtempSync(join(tmpdir(), 'berth-head-'));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, '.git', path)), { recursive: true });
      if (content.startsWith('->')) symlinkSync(content.slice(2), join(dir, '.git', path));
      else writeFileSync(join(dir, '.git', path), content);
    }
    return dir;
  }
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the branch ref HEAD names, nested names included, or a detached sha', () => {
    expect(headOfClone(gitDir({ HEAD: 'ref: refs/heads/feature/dev\n', 'refs/heads/feature/dev': `${SHA}\n` }))?.stdout.trim()).to.equal(SHA);
    expect(headOfClone(gitDir({ HEAD: `${SHA}\n` }))?.stdout.trim()).to.equal(SHA);
  });

  it('gives null (git rev-parse decides) for a packed ref, a link, a path with .. or anything not a sha', () => {
    expect(headOfClone(gitDir({ HEAD: 'ref: refs/heads/main\n', 'packed-refs': `${SHA} refs/heads/main\n` }))).to.equal(null);
    expect(headOfClone(gitDir({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': '->/etc/hostname' }))).to.equal(null);
    expect(headOfClone(gitDir({ HEAD: '->refs/heads/main', 'refs/heads/main': `${SHA}\n` }))).to.equal(null);
    expect(headOfClone(gitDir({ HEAD: 'ref: refs/heads/../../x\n', x: `${SHA}\n` }))).to.equal(null);
    expect(headOfClone(gitDir({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': 'not a sha\n' }))).to.equal(null);
  });
});
