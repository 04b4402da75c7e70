// Read-only access to a checked-out repository for the detectors. Paths are relative to the
// service's directory; a symbolic link that leads outside it reads as missing, so a repository
// cannot make the analyzer read (and show in a plan) files of the server.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const MAX_READ = 1024 * 1024;

export class RepoFiles {
  private readonly realRoot: string;

  constructor(readonly dir: string) {
    this.realRoot = realpathSync(dir);
  }

  private resolve(rel: string): string | null {
    const full = join(this.dir, rel);
    if (!existsSync(full)) return null;
    const r = relative(this.realRoot, realpathSync(full));
    if (r === '..' || r.startsWith(`..${sep}`)) return null;
    return full;
  }

  isFile(rel: string): boolean {
    const p = this.resolve(rel);
    return p !== null && statSync(p).isFile();
  }

  isDir(rel: string): boolean {
    const p = this.resolve(rel);
    return p !== null && statSync(p).isDirectory();
  }

  /** The text of a file, or null when it is missing, too large or not a file. */
  read(rel: string): string | null {
    const p = this.resolve(rel);
    if (p === null) return null;
    const st = statSync(p);
    if (!st.isFile() || st.size > MAX_READ) return null;
    return readFileSync(p, 'utf8');
  }

  /** A JSON file's object, or null when missing or not a JSON object. */
  json(rel: string): Record<string, unknown> | null {
    const text = this.read(rel);
    if (text === null) return null;
    try {
      const v: unknown = JSON.parse(text);
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  /** Entry names of a directory, sorted; empty when it is missing. */
  list(rel = '.'): string[] {
    const p = this.resolve(rel);
    if (p === null || !statSync(p).isDirectory()) return [];
    return readdirSync(p).sort();
  }

  /** Files under `rel` (relative paths, depth-limited, skipping dependency and VCS folders) whose name matches. */
  find(match: (name: string) => boolean, rel = '.', depth = 3): string[] {
    const out: string[] = [];
    const walk = (dir: string, left: number) => {
      for (const name of this.list(dir)) {
        if (name === 'node_modules' || name === '.git' || name === 'vendor' || name === 'target' || name === '__pycache__') continue;
        const path = dir === '.' ? name : `${dir}/${name}`;
        if (this.isDir(path)) {
          if (left > 0) walk(path, left - 1);
        } else if (match(name)) out.push(path);
      }
    };
    walk(rel, depth);
    return out;
  }
}
