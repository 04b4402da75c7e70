// Projects' public status pages as files Caddy serves itself (file_server), so a page outlives the
// daemon and costs Caddy what any static file costs. A page is its own content's name (a hash), so
// Caddy's configuration changes exactly when a page does, a file is written once and never changed
// in place, and a configuration Caddy resumed after a restart still finds its files (only files no
// loaded configuration names any more are removed). The folder must be readable by Caddy's user:
// an installed server keeps it outside Berth's private data (BERTH_STATUS_PAGES_DIR).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PAGE_NAME = /^[0-9a-f]{32}\.html$/;

export class PageFiles {
  constructor(readonly dir: string) {}

  /** The path of the file holding `html`, written now if it is not there yet (world-readable: the page is public). */
  place(html: string): string {
    const name = `${createHash('sha256').update(html).digest('hex').slice(0, 32)}.html`;
    const path = join(this.dir, name);
    if (existsSync(path)) return path;
    mkdirSync(this.dir, { recursive: true });
    chmodSync(this.dir, 0o755); // the daemon's umask (0077) would keep Caddy's user out
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, html, { mode: 0o644 });
    chmodSync(partial, 0o644);
    renameSync(partial, path); // Caddy never reads half a page
    return path;
  }

  /** Removes the pages `keep` does not hold (after a load: nothing Caddy runs names them). */
  prune(keep: ReadonlySet<string>): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return; // no folder: no page was ever written
    }
    for (const name of names) {
      if ((PAGE_NAME.test(name) || name.endsWith('.partial')) && !keep.has(join(this.dir, name))) rmSync(join(this.dir, name), { force: true });
    }
  }
}
