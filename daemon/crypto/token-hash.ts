// API key secrets at rest: HMAC-SHA256, under a key derived from the data dir's secret key, of the
// secret's SHA-256. Why a fast keyed hash and not a slow password hash: issued secrets are 256-bit
// random tokens nobody can guess, so a slow hash would only cost CPU on every request; the server
// key makes a copied database alone useless for testing guesses (which matters for a
// BERTH_BOOTSTRAP_KEY an operator chose); and lookups stay one indexed equality on the hash (a
// per-key salt would need an id in the token or a scan of every key). The inner SHA-256 is there so
// rows stored as plain SHA-256 before this scheme can be converted without their secrets
// (migration 006).
import { createHash, createHmac, hkdfSync } from 'node:crypto';

export interface TokenHasher {
  /** What is stored for a secret. */
  hash(token: string): string;
  /** The stored form of a row that held the plain SHA-256 (hex) of its secret. */
  fromSha256(hex: string): string;
}

export const TOKEN_HASH_PREFIX = 'hmac1:';

export function tokenHasherFromKey(secretKey: Buffer): TokenHasher {
  // a key of its own, so this MAC and the secret box's cipher never share one
  const macKey = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'berth api key hashes v1', 32));
  const fromDigest = (digest: Buffer) => TOKEN_HASH_PREFIX + createHmac('sha256', macKey).update(digest).digest('hex');
  return {
    hash: (token) => fromDigest(createHash('sha256').update(token, 'utf8').digest()),
    fromSha256: (hex) => fromDigest(Buffer.from(hex, 'hex')),
  };
}
