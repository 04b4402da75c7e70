// Status pages as files Caddy serves (proxy/page-files.ts): readable by another user whatever the
// daemon's umask, named by their content, written once, and pruned to what a configuration names.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PageFiles } from '../../daemon/proxy/page-files.js';

describe('status page files', () => {
  let root: string;
  let oldMask: number;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'berth-pages-'));
    oldMask = process.umask(0o077); // the installed daemon's UMask
  });
  afterEach(() => {
    process.umask(oldMask);
    rmSync(root, { recursive: true, force: true });
  });

  it('writes a page world-readable in a folder others may enter, under the daemon umask 0077', () => {
    const pages = new PageFiles(join(root, 'status-pages'));
    const file = pages.place('<p>up</p>');
    expect(readFileSync(file, 'utf8')).to.equal('<p>up</p>');
    expect(statSync(file).mode & 0o777).to.equal(0o644);
    expect(statSync(pages.dir).mode & 0o777).to.equal(0o755);
    expect(readdirSync(pages.dir)).to.deep.equal([file.slice(pages.dir.length + 1)]); // no partial left
  });

  it('names a page by its content: the same HTML is the same file, other HTML another', () => {
    const pages = new PageFiles(root);
    const a = pages.place('<p>a</p>');
    expect(pages.place('<p>a</p>')).to.equal(a);
    expect(pages.place('<p>b</p>')).to.not.equal(a);
  });

  it('prunes the pages a configuration no longer names, and nothing else in the folder', () => {
    const pages = new PageFiles(root);
    const keep = pages.place('<p>kept</p>');
    const gone = pages.place('<p>old</p>');
    writeFileSync(join(root, 'notes.txt'), 'not a page');
    pages.prune(new Set([keep]));
    expect(readdirSync(root).sort()).to.deep.equal([keep.slice(root.length + 1), 'notes.txt'].sort());
    expect(() => statSync(gone)).to.throw();
    new PageFiles(join(root, 'never-written')).prune(new Set()); // no folder: nothing to do
  });
});
