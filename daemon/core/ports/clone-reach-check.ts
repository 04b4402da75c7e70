// Where a git clone (or an image pull) may connect, checked before anything connects (the adapter:
// daemon/builder/clone-reach.ts; the rule: core/clone-reach.ts).
import type { ServiceRecord } from '../records.js';
import type { ImportReach } from './backup-jobs.js';

/** The same shape as an import's reach: anywhere, or not this host except some host ports. */
export type CloneReach = ImportReach;

/**
 * Checks a git service's clone URL (its repoUrl, or owner/name under BERTH_GIT_BASE_URL) against
 * a reach before anything connects: throws Forbidden (403) or InvalidInput (400). Implemented in
 * builder/clone-reach.ts.
 */
export interface CloneReachCheck {
  check(source: Pick<ServiceRecord, 'repoFullName' | 'repoUrl'>, reach: CloneReach): Promise<void>;
  /** The registry an image reference names (none: Docker Hub), checked the same way: the Engine on this host connects to it. */
  checkImage(ref: string, reach: CloneReach): Promise<void>;
}
