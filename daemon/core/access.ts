// What one API key may do. Routes ask; core code receives an Access and never sees HTTP.
import type { KeyRecord } from './records.js';
import { Forbidden, NotFound } from './errors.js';

export class Access {
  constructor(readonly key: KeyRecord) {}

  get allProjects(): boolean {
    return this.key.projects === 'all';
  }

  canSee(projectId: string): boolean {
    return this.key.projects === 'all' || this.key.projects.includes(projectId);
  }

  /** Refuses a read key on a write endpoint (403): this never depends on which resource is named. */
  requireWrite(): void {
    if (this.key.access !== 'write') throw new Forbidden('this key is read-only; a write key is required');
  }

  requireAllProjects(action: string): void {
    if (!this.allProjects) throw new Forbidden(`${action} needs a key over all projects`);
  }

  /** Out-of-scope resources answer exactly like unknown ones, so a key learns nothing it cannot see. */
  requireVisible(projectId: string, what: string): void {
    if (!this.canSee(projectId)) throw new NotFound(`${what} not found`);
  }
}
