// What the store keeps of per-project quotas (core/quotas.ts; daemon/store/quotas-repo.ts implements it).
import type { ProjectQuotas } from '../../../shared/types.js';

/** A project's own overrides: null follows the server's default. */
export type QuotaOverrides = ProjectQuotas;

export interface QuotaRepo {
  get(projectId: string): Promise<QuotaOverrides | null>;
  put(projectId: string, overrides: QuotaOverrides, at: string): Promise<void>;
}
