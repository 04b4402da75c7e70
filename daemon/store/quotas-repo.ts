// Per-project quota overrides (core/quotas.ts): one row per project that sets any; null columns
// follow the server's default.
import type { Knex } from 'knex';
import type { QuotaOverrides, QuotaRepo } from '../core/ports/quota-repo.js';

interface QuotaRow {
  project_id: string;
  max_services: number | null;
  max_backups: number | null;
  max_backup_bytes: number | null;
  max_images_per_service: number | null;
  updated_at: string;
}

export function quotaRepo(knex: Knex): QuotaRepo {
  return {
    async get(projectId) {
      const row = await knex<QuotaRow>('project_quotas').where({ project_id: projectId }).first();
      if (!row) return null;
      return {
        maxServices: row.max_services,
        maxBackups: row.max_backups,
        maxBackupBytes: row.max_backup_bytes === null ? null : Number(row.max_backup_bytes),
        maxImagesPerService: row.max_images_per_service,
      } satisfies QuotaOverrides;
    },
    async put(projectId, q, at) {
      const values = {
        max_services: q.maxServices,
        max_backups: q.maxBackups,
        max_backup_bytes: q.maxBackupBytes,
        max_images_per_service: q.maxImagesPerService,
        updated_at: at,
      };
      await knex<QuotaRow>('project_quotas')
        .insert({ project_id: projectId, ...values })
        .onConflict('project_id')
        .merge(values);
    },
  };
}
