// What a build-plan preview needs: clone the branch and analyse it without building (the adapter:
// daemon/builder/autobuild/preview.ts).
import type { BuildPlanPreview } from '../../../shared/types.js';
import type { ServiceRecord } from '../records.js';
import type { CloneReach } from './clone-reach-check.js';

export interface BuildPlanner {
  /** `keyId`: previews are limited per key as well as in all. `reach`: where its clone may connect. */
  preview(service: ServiceRecord, keyId: string, reach: CloneReach): Promise<BuildPlanPreview>;
}
