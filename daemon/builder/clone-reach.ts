// The clone side of core/clone-reach.ts: a repository URL's host resolved once and checked with
// the same rule as a redis import's source (backups/source-reach.ts); the clone then connects to
// exactly that address (git's http.curloptResolve pins the name, so a name that resolves elsewhere
// the second time changes nothing) and follows no redirect (a redirect could lead anywhere).
import { isIP } from 'node:net';
import type { CloneReach, CloneReachCheck } from '../core/ports/clone-reach-check.js';
import { InvalidInput } from '../core/errors.js';
import { isHttpGitUrl } from '../core/source.js';
import { parseImageRef } from '../core/image-refs.js';
import { cloneUrlFor } from './checkout.js';
import { pinReachableAddress, type ReachFacts } from '../backups/source-reach.js';

/** Extra git settings for a clone within a reach: null for anywhere (today's behaviour). */
export interface ClonePin {
  /** `host:port:address` for http.curloptResolve; null when the URL names an address. */
  resolve: string | null;
}

const WORDING = {
  subject: 'repoUrl',
  rule: "a key over selected projects clones only from another server, or from a service of its own projects on this server's host port",
};

/**
 * `gitBaseUrl` (BERTH_GIT_BASE_URL) is the forge the operator chose for owner/name repositories:
 * its origin is the operator's decision, not the tenant's, so it is not checked (a clone there
 * still follows no redirect). Every other host is.
 */
export async function pinCloneAddress(repoUrl: string, reach: CloneReach, facts: ReachFacts, gitBaseUrl: string): Promise<ClonePin | null> {
  if (reach.anywhere) return null;
  let url: URL;
  try {
    url = new URL(repoUrl);
  } catch {
    throw new InvalidInput('repoUrl is not a URL', 'invalid_repo_url');
  }
  if (url.origin === originOf(gitBaseUrl)) return { resolve: null };
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const address = await pinReachableAddress(hostname, port, reach, facts, WORDING);
  if (isIP(hostname)) return { resolve: null };
  return { resolve: `${hostname}:${port}:${isIP(address) === 6 ? `[${address}]` : address}` };
}

const REGISTRY_WORDING = {
  subject: "the image reference's registry",
  rule: 'a key over selected projects pulls only from registries on other servers',
};

/**
 * Checks the registry an image reference names (Docker Hub when none) against a reach: the
 * Engine, on this host, connects to it to pull. The Engine resolves the name itself, so this
 * cannot pin the address; it refuses what resolves here now.
 */
export async function checkRegistryReach(ref: string, reach: CloneReach, facts: ReachFacts): Promise<void> {
  if (reach.anywhere) return;
  const registry = parseImageRef(ref)?.registry ?? null;
  if (registry === null) return;
  const m = /^(\[[^\]]+\]|[^:]+)(?::([0-9]+))?$/.exec(registry);
  if (!m) throw new InvalidInput(`the image reference's registry ${registry} is not a host`, 'invalid_image_reference');
  await pinReachableAddress(m[1]!.replace(/^\[(.*)\]$/, '$1'), m[2] ? Number(m[2]) : 443, reach, facts, REGISTRY_WORDING);
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** The check core runs when a service is created (a clear 403 before anything is stored). */
export function cloneReachCheck(facts: ReachFacts, gitBaseUrl: string): CloneReachCheck {
  return {
    check: async (source, reach) => {
      const url = cloneUrlFor(source, gitBaseUrl);
      if (isHttpGitUrl(url)) await pinCloneAddress(url, reach, facts, gitBaseUrl);
    },
    checkImage: (ref, reach) => checkRegistryReach(ref, reach, facts),
  };
}
