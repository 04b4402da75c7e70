import { randomBytes, randomUUID } from 'node:crypto';

/** Opaque identifiers for every resource. */
export function newId(): string {
  return randomUUID();
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A password that is safe in a URL without escaping: 24 alphanumerics, about 143 bits. */
export function strongPassword(length = 24): string {
  const out: string[] = [];
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // rejection sampling keeps the distribution uniform over 62 symbols
      if (b < 248 && out.length < length) out.push(ALNUM[b % 62]!);
    }
  }
  return out.join('');
}
