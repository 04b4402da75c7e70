// GET /api/services/:serviceId/build-plan (read; the service's project visible): what a deployment
// would build from the branch's head, without building. The key and the service are checked here;
// the previewer (daemon/builder/autobuild/preview.ts) clones and analyses, bounded per key.
import type { BuildPlanPreview } from '../../shared/types.js';
import { visibleService, type Access } from './access.js';
import { InvalidInput } from './errors.js';
import type { Store } from './ports/store.js';
import { cloneReachOfKey, cloneReachOfService, widerReach } from './clone-reach.js';
import type { BuildPlanner } from './ports/build-planner.js';

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
    // the key's reach, or the service's own when wider (its source came from a key over all projects)
    const reach = widerReach(await cloneReachOfKey(this.store, access), await cloneReachOfService(this.store, service));
    return this.planner.preview(service, access.key.id, reach);
  }
}
