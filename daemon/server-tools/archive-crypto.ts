// The encryption of Berth's own backup archive: AES-256-GCM under a key derived from the user's
// passphrase with scrypt, streamed (the archive is never held in memory). Layout of the file:
//
//   "BERTHAR1" (8 bytes) | scrypt salt (16) | GCM IV (12) | ciphertext | GCM tag (16)
//
// Self-contained: nothing but the passphrase is needed to open it (unlike a copy of the store,
// whose sealed credentials need the server's secret: the archive carries that secret inside).
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const MAGIC = Buffer.from('BERTHAR1');
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + SALT_BYTES + IV_BYTES;
/** scrypt cost: about 0.1 s and 32 MiB here, once per archive. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function deriveKey(passphrase: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(passphrase.normalize('NFC'), salt, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))));
}

/**
 * Encrypts what `open()` returns into the file `out` (created 0600); resolves when the file is
 * complete. `open` is called once the key is derived, and its stream is read at once (a child
 * process's stdout that nobody reads while the key is derived can be lost when the child exits).
 */
export async function encryptToFile(open: () => Readable, out: string, passphrase: string): Promise<void> {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', await deriveKey(passphrase, salt), iv);
  const source = open();
  const file = createWriteStream(out, { mode: 0o600 });
  file.write(Buffer.concat([MAGIC, salt, iv]));
  await pipeline(source, cipher, file, { end: false });
  await new Promise<void>((resolve, reject) => file.end(cipher.getAuthTag(), (err?: Error | null) => (err ? reject(err) : resolve())));
}

class ArchiveOpenError extends Error {}

/**
 * Decrypts the archive file into `sink`. The tag is checked at the end: a wrong passphrase or a
 * changed byte rejects with ArchiveOpenError after `sink` saw data, so extract into a scratch
 * place and use it only when this resolves.
 */
export async function decryptFile(path: string, passphrase: string, sink: Writable): Promise<void> {
  const size = (await stat(path)).size;
  if (size <= HEADER_BYTES + TAG_BYTES) throw new ArchiveOpenError(`${path} is not a Berth server archive (too short)`);
  const head = Buffer.alloc(HEADER_BYTES);
  const tag = Buffer.alloc(TAG_BYTES);
  const fh = await open(path, 'r');
  try {
    await fh.read(head, 0, HEADER_BYTES, 0);
    await fh.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
  } finally {
    await fh.close();
  }
  if (!head.subarray(0, MAGIC.length).equals(MAGIC)) throw new ArchiveOpenError(`${path} is not a Berth server archive (no BERTHAR1 header)`);
  const salt = head.subarray(MAGIC.length, MAGIC.length + SALT_BYTES);
  const iv = head.subarray(MAGIC.length + SALT_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', await deriveKey(passphrase, salt), iv);
  decipher.setAuthTag(tag);
  const source = createReadStream(path, { start: HEADER_BYTES, end: size - TAG_BYTES - 1 });
  try {
    await pipeline(source, decipher, sink);
  } catch (err) {
    if (err instanceof Error && /unable to authenticate|auth/i.test(err.message)) throw new ArchiveOpenError('the archive does not open with this passphrase (or it was changed since it was written)');
    throw err;
  }
}
