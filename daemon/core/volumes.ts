// A project's volumes: the ones its services mount and the ones kept after their service was
// deleted (`keepVolumes`), with their sizes when the Engine measured them recently.
import type { ProjectVolume } from '../../shared/types.js';
import { visibleProject, type Access } from './access.js';
import type { Store } from './ports/store.js';
import type { VolumeSizes } from './ports/volume-sizes.js';
import { volumeView } from './views.js';

export class ProjectVolumes {
  constructor(
    private store: Store,
    private sizes: VolumeSizes,
  ) {}

  async list(access: Access, projectIdOrSlug: string): Promise<ProjectVolume[]> {
    const project = await visibleProject(this.store, access, projectIdOrSlug);
    const sizeOf = (projectId: string, name: string) => this.sizes.sizeOf(projectId, name);
    return (await this.store.services.projectVolumes(project.id)).map((v) => volumeView(v, sizeOf));
  }
}
