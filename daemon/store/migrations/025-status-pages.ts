// Migration 025: public status pages (issue 30), at most one per project: the hostname Caddy serves
// it on (unique on the server, like domains), the title and the services shown with the labels the
// owner chose, and the page as last rendered: Caddy serves that HTML from its own configuration, so
// the page keeps its last state while the daemon is down.
import type { Migration } from './migration.js';

export const statusPages: Migration = {
  name: '025_status_pages',
  async up(knex) {
    await knex.schema.createTable('status_pages', (t) => {
      t.string('project_id').primary().references('projects.id').onDelete('CASCADE');
      t.boolean('enabled').notNullable();
      t.string('hostname').notNullable().unique();
      t.string('title').notNullable();
      // [{serviceId, label}] as JSON, in the owner's order
      t.text('services').notNullable();
      t.text('html');
      t.string('rendered_at');
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable('status_pages');
  },
};
