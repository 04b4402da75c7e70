// Berth's own backup taken by the daemon (core's ServerArchivePort): createServerArchive into
// <data dir>/server-backups (the folder `berth server backup` writes to by default), and the files
// of that folder by name. Every name is checked against Berth's pattern and taken as a base name:
// nothing else in the folder (an archive of the on-server command, a file another tool put there)
// is opened or removed unless core names it.
import { createReadStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { LocalFile, ServerArchiveMade, ServerArchivePort } from '../core/ports/server-backups.js';
import { isServerArchiveName } from '../core/server-backup-rules.js';
import { createServerArchive, type ServerPaths } from './server-archive.js';

async function fileAt(path: string): Promise<LocalFile | null> {
  try {
    const st = await stat(path);
    return st.isFile() ? { path, sizeBytes: st.size } : null;
  } catch {
    return null;
  }
}

export class ServerArchiveFiles implements ServerArchivePort {
  constructor(
    private readonly paths: ServerPaths,
    /** The folder (created 0700 on the first run). */
    readonly dir: string,
  ) {}

  async create(passphrase: string, tag: string, at: Date): Promise<ServerArchiveMade> {
    const made = await createServerArchive(this.paths, passphrase, this.dir, at, tag);
    return { fileName: basename(made.file), sha256: made.sha256, sizeBytes: made.sizeBytes, berthVersion: made.manifest.berthVersion, counts: made.manifest.counts };
  }

  async local(fileName: string): Promise<{ archive: LocalFile; checksum: LocalFile | null } | null> {
    const path = this.path(fileName);
    const archive = await fileAt(path);
    return archive ? { archive, checksum: await fileAt(`${path}.sha256`) } : null;
  }

  async open(fileName: string) {
    const file = await fileAt(this.path(fileName));
    return file ? { body: createReadStream(file.path), sizeBytes: file.sizeBytes } : null;
  }

  async remove(fileName: string): Promise<void> {
    const path = this.path(fileName);
    await rm(path, { force: true });
    await rm(`${path}.sha256`, { force: true });
  }

  async removePartial(): Promise<void> {
    let entries;
    try {
      entries = await readdir(this.dir, { withFileTypes: true });
    } catch {
      return; // no folder yet
    }
    for (const e of entries) {
      // createServerArchive's staging folders and its archive before the rename
      const staging = e.isDirectory() && e.name.startsWith('.stage-');
      const part = e.isFile() && e.name.endsWith('.part') && isServerArchiveName(e.name.slice(0, -'.part'.length));
      if (staging || part) await rm(join(this.dir, e.name), { recursive: true, force: true });
    }
  }

  private path(fileName: string): string {
    if (!isServerArchiveName(fileName) || basename(fileName) !== fileName) throw new Error(`"${fileName.slice(0, 80)}" is not the name of an archive of Berth`);
    return join(this.dir, fileName);
  }
}
