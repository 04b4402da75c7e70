// Encryption at rest for secrets (env values, tokens, provider credentials): AES-256-GCM with a
// key kept in the data dir, readable by the daemon's user only.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

const PREFIX = 'v1';

export function secretBoxFromKey(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('secret key must be 32 bytes');
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [PREFIX, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
    },
    open(sealed) {
      const [prefix, iv, tag, ct] = sealed.split(':');
      if (prefix !== PREFIX || iv === undefined || tag === undefined || ct === undefined) {
        throw new Error('sealed value has an unknown format');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/** Loads `<path>`, creating it (0600) with a new random key on first use. */
export function loadOrCreateSecretKey(path: string): Buffer {
  if (!existsSync(path)) {
    writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  }
  chmodSync(path, 0o600);
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
  return key;
}
