// What every stack detector gets: the service's files, and a look at the folders above it up to
// the repository's top (a monorepo keeps its lockfile there).
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { RepoFiles } from './files.js';

export interface DetectContext {
  files: RepoFiles;
  /** Whether a folder between the service's directory (exclusive) and the repository's top (inclusive) holds this file. */
  aboveHas(name: string): boolean;
}

export function detectContext(root: string, repoRoot: string | undefined): DetectContext {
  const files = new RepoFiles(root);
  const top = resolve(repoRoot ?? root);
  const realTop = realpathSync(top);
  // a link that leads outside the repository counts as missing: the plan must not tell what the server holds
  const insideRepo = (path: string): boolean => {
    const r = relative(realTop, realpathSync(path));
    return r !== '..' && !r.startsWith(`..${sep}`);
  };
  return {
    files,
    aboveHas(name) {
      let dir = resolve(root);
      while (dir !== top) {
        const rel = relative(top, dir);
        if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`)) return false;
        dir = dirname(dir);
        const path = join(dir, name);
        if (existsSync(path) && insideRepo(path)) return true;
      }
      return false;
    },
  };
}
