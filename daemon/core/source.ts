// Checks on where a service's code comes from. Anything that reaches git or the filesystem later
// is refused here if it could act as an option or escape the checkout.
import { posix } from 'node:path';
import { InvalidInput } from './errors.js';

export { checkImageRef } from './image-refs.js';

const REPO_FULL_NAME = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

export function checkRepoFullName(value: string): string {
  if (!REPO_FULL_NAME.test(value) || value.split('/').some((p) => p === '.' || p === '..' || p.startsWith('-'))) {
    throw new InvalidInput('repoFullName must look like owner/name');
  }
  return value;
}

/**
 * A repository URL Berth clones: http:// or https:// with a host, nothing else. file://, local
 * paths (/srv/x, ./x), ext::, ssh://, git:// and user@host:path are refused: a local path would
 * clone the server's own files, and ssh could only work with the host's identity, which clones
 * never get.
 */
export function checkGitUrl(value: string): string {
  if (value.startsWith('-')) throw new InvalidInput('repoUrl must not start with "-"', 'invalid_repo_url');
  if (/[\s\0]/.test(value)) throw new InvalidInput('repoUrl must not contain whitespace', 'invalid_repo_url');
  if (!isHttpGitUrl(value)) {
    throw new InvalidInput('repoUrl must be an https:// or http:// URL with a host (file://, local paths, ssh, git:// and ext:: are refused)', 'invalid_repo_url');
  }
  return value;
}

/** True for an http(s) URL with a host: the only repository URLs Berth clones. */
export function isHttpGitUrl(value: string): boolean {
  // the host right after `//`: `http:///srv/x` (no authority) is not read as host "srv"
  if (!/^https?:\/\/[^/\\]/i.test(value) || /[\s\0]/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** git check-ref-format's rules, plus no leading "-" so a branch can never be read as an option. */
export function checkBranch(value: string): string {
  const bad =
    value.length === 0 ||
    value.length > 255 ||
    value.startsWith('-') ||
    value.startsWith('/') ||
    value.endsWith('/') ||
    value.endsWith('.') ||
    value.endsWith('.lock') ||
    value.includes('..') ||
    value.includes('//') ||
    value.includes('@{') ||
    value === '@' ||
    // eslint-disable-next-line no-control-regex -- git refuses control characters in branch names (git check-ref-format)
    /[\x00-\x20\x7f~^:?*[\\]/.test(value) ||
    value.split('/').some((part) => part.startsWith('.'));
  if (bad) throw new InvalidInput(`branch "${value.slice(0, 80)}" is not a valid git branch name`);
  return value;
}

/** A path inside the checkout: relative, normalised, never climbing out. Empty means the root. */
export function checkRelativePath(field: string, value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === '.' || trimmed === './') return null;
  if (trimmed.includes('\0')) throw new InvalidInput(`${field} must not contain NUL`);
  if (trimmed.startsWith('/') || trimmed.startsWith('\\')) throw new InvalidInput(`${field} must be relative to the repository`);
  const normal = posix.normalize(trimmed.replace(/\\/g, '/')).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) throw new InvalidInput(`${field} must stay inside the repository`);
  return normal === '.' ? null : normal;
}
