// Saving a download the API answers (a database backup, a volume tarball, an archive of Berth): to
// the file asked for, else the name the server gives (used only without control characters or a
// path), else a fallback; `-` streams it to stdout. An existing file is never overwritten. Answers
// where it went and the SHA-256 (hex) of the bytes, for the caller to check against what it expects.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CliError } from './exit-codes.js';

export async function saveDownload(res: Response, output: string | undefined, fallbackName: string): Promise<{ file: string; sha256: string }> {
  // eslint-disable-next-line no-control-regex
  const given = /filename="([^"/\\\x00-\x1f\x7f-\x9f]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1];
  const file = output ?? given ?? fallbackName;
  if (!res.body) throw new CliError('the server sent no body');
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  if (file === '-') await pipeline(body, hashing, process.stdout, { end: false });
  else await pipeline(body, hashing, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  return { file, sha256: hash.digest('hex') };
}
