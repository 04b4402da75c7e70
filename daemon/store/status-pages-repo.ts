// Public status pages (core/status-pages.ts): one row per project that has one.
import type { Knex } from 'knex';
import type { StatusPageService } from '../../shared/types.js';
import type { StatusPageRecord, StatusPagesRepo } from '../core/ports/status-pages.js';

interface Row {
  project_id: string;
  enabled: number | boolean;
  hostname: string;
  title: string;
  services: string;
  html: string | null;
  rendered_at: string | null;
  created_at: string;
  updated_at: string;
}

const TABLE = 'status_pages';

function services(raw: string): StatusPageService[] {
  try {
    const list = JSON.parse(raw) as StatusPageService[];
    return Array.isArray(list) ? list.map((s) => ({ serviceId: String(s.serviceId), label: String(s.label) })) : [];
  } catch {
    return [];
  }
}

function record(r: Row): StatusPageRecord {
  return {
    projectId: r.project_id,
    enabled: Boolean(r.enabled),
    hostname: r.hostname,
    title: r.title,
    services: services(r.services),
    html: r.html,
    renderedAt: r.rendered_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function statusPagesRepo(knex: Knex): StatusPagesRepo {
  return {
    async get(projectId) {
      const row = await knex<Row>(TABLE).where({ project_id: projectId }).first();
      return row ? record(row) : null;
    },
    async findByHostname(hostname) {
      const row = await knex<Row>(TABLE).where({ hostname }).first();
      return row ? record(row) : null;
    },
    async list() {
      return (await knex<Row>(TABLE).orderBy('created_at')).map(record);
    },
    async put(p) {
      const row = { project_id: p.projectId, enabled: p.enabled, hostname: p.hostname, title: p.title, services: JSON.stringify(p.services), created_at: p.createdAt, updated_at: p.updatedAt };
      await knex(TABLE).insert(row).onConflict('project_id').merge(['enabled', 'hostname', 'title', 'services', 'updated_at']);
    },
    async setHtml(projectId, html, at) {
      await knex(TABLE).where({ project_id: projectId }).update({ html, rendered_at: at });
    },
    async delete(projectId) {
      await knex(TABLE).where({ project_id: projectId }).delete();
    },
  };
}
