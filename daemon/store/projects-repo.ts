import type { Knex } from 'knex';
import { readPaged } from './paged-read.js';
import type { ProjectRecord } from '../core/records.js';
import type { ProjectRepo } from '../core/ports/store.js';

interface ProjectRow {
  id: string;
  name: string;
  slug: string;
  description: string;
  created_at: string;
  updated_at: string;
}

function toRecord(row: ProjectRow): ProjectRecord {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function projectRepo(knex: Knex): ProjectRepo {
  return {
    async list() {
      const rows = await readPaged<ProjectRow>(knex, (db) =>
        db<ProjectRow>('projects')
          .select('*')
          .orderBy([{ column: 'created_at' }, { column: 'id' }]),
      );
      return rows.map(toRecord);
    },
    async get(id) {
      const row = await knex<ProjectRow>('projects').where({ id }).first();
      return row ? toRecord(row) : null;
    },
    async getBySlug(slug) {
      const row = await knex<ProjectRow>('projects').where({ slug }).first();
      return row ? toRecord(row) : null;
    },
    async slugs() {
      const rows = await knex<ProjectRow>('projects').select('slug');
      return new Set(rows.map((r) => r.slug));
    },
    async insert(p) {
      await knex<ProjectRow>('projects').insert({
        id: p.id,
        name: p.name,
        slug: p.slug,
        description: p.description,
        created_at: p.createdAt,
        updated_at: p.updatedAt,
      });
    },
    async update(id, patch) {
      const row: Partial<ProjectRow> = {};
      if (patch.name !== undefined) row.name = patch.name;
      if (patch.description !== undefined) row.description = patch.description;
      if (patch.updatedAt !== undefined) row.updated_at = patch.updatedAt;
      await knex<ProjectRow>('projects').where({ id }).update(row);
    },
    async deleteCascade(id) {
      // Foreign keys cascade to services, env_vars, domains, deployments and deployment_logs;
      // the transaction makes the whole removal one step.
      await knex.transaction(async (trx) => {
        await trx('projects').where({ id }).delete();
      });
    },
  };
}
