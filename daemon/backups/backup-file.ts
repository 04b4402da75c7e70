// A backup on disk is either whole or absent: the dump streams into `<name>.partial` while its
// sha256 and size are computed, the file is fsynced, then renamed into place (and the directory
// fsynced). An empty dump, a tool that failed, or any write error removes the partial file.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const PARTIAL_SUFFIX = '.partial';

export interface WrittenFile {
  sizeBytes: number;
  checksum: string;
}

export async function writeWhole(finalPath: string, produce: (out: Writable) => Promise<void>): Promise<WrittenFile> {
  await mkdir(dirname(finalPath), { recursive: true, mode: 0o700 });
  const tmp = finalPath + PARTIAL_SUFFIX;
  const file = await open(tmp, 'w', 0o600);
  const hash = createHash('sha256');
  let size = 0;
  const sink = new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      file.write(chunk).then(() => done(), done);
    },
  });
  try {
    await produce(sink);
    await new Promise<void>((resolve, reject) => {
      sink.once('error', reject);
      sink.end(resolve);
    });
    if (size === 0) throw new Error('the dump is empty');
    await file.sync();
    await file.close();
    await rename(tmp, finalPath);
    await syncDir(dirname(finalPath));
    return { sizeBytes: size, checksum: `sha256:${hash.digest('hex')}` };
  } catch (err) {
    sink.destroy();
    await file.close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The `sha256:<hex>` of a file, read as a stream. */
export async function checksumOf(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return `sha256:${hash.digest('hex')}`;
}
