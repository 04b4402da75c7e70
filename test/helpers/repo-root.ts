import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

/** The repository root, from compiled test files in dist/test/... or sources alike. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []));
