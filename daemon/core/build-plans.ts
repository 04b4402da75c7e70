// GET /api/services/:serviceId/build-plan (read; the service's project visible): what a deployment
// would build from the branch's head, without building. The key and the service are checked here;
// the previewer (daemon/builder/autobuild/preview.ts) clones and analyses, bounded per key.
import type { BuildPlanPreview } from '../../shared/types.js';
import { visibleService, type Access } from './access.js';
import { InvalidInput } from './errors.js';
import type { ServiceRecord } from './records.js';
import type { Store } from './store.js';

export interface BuildPlanner {
  /** `keyId`: previews are limited per key as well as in all. */
  preview(service: ServiceRecord, keyId: string): Promise<BuildPlanPreview>;
}

export class BuildPlans {
  constructor(
    private readonly store: Store,
    private readonly planner: BuildPlanner,
  ) {}

  async preview(access: Access, serviceId: string): Promise<BuildPlanPreview> {
    const service = await visibleService(this.store, access, serviceId);
    if (service.kind !== 'git') {
      throw new InvalidInput(`only git services have a build plan; this is ${service.kind === 'image' ? 'an image' : 'a database'} service`, 'not_a_git_service');
    }
    return this.planner.preview(service, access.key.id);
  }
}
