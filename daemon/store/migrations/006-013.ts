// Migrations 006 to 013: keyed key hashes, service limits, sessions, webhooks, log bounds,
// project quotas, generated names and hooks.
import { TOKEN_HASH_PREFIX } from '../../crypto/token-hash.js';
import type { Migration, MigrationContext } from './migration.js';

/**
 * Key secrets were stored as their plain SHA-256; they become keyed hashes (crypto/token-hash.ts)
 * computed from that digest, so every existing key keeps working. Keys made for
 * BERTH_BOOTSTRAP_KEY are marked, so a changed variable revokes the superseded one: before this
 * they were recognisable only as the write keys over all projects named "bootstrap".
 */
export function keyedKeyHashes(ctx: MigrationContext): Migration {
  return {
    name: '006_keyed_key_hashes',
    async up(knex) {
      await knex.schema.alterTable('keys', (t) => {
        t.boolean('bootstrap').notNullable().defaultTo(false);
      });
      const rows = await knex<{ id: string; token_hash: string }>('keys').select('id', 'token_hash');
      for (const row of rows) {
        if (row.token_hash.startsWith(TOKEN_HASH_PREFIX)) continue;
        await knex('keys')
          .where({ id: row.id })
          .update({ token_hash: ctx.tokens.fromSha256(row.token_hash) });
      }
      await knex('keys')
        .where({ name: 'bootstrap', access: 'write', projects: JSON.stringify('all') })
        .update({ bootstrap: true });
    },
    async down() {
      throw new Error('006_keyed_key_hashes cannot be undone: the plain SHA-256 of a secret cannot be recovered from its keyed hash');
    },
  };
}

// Console sessions: only a hash of the cookie's secret is stored; a key's sessions go with it.
export const sessions: Migration = {
  name: '008_sessions',
  async up(knex) {
    await knex.schema.createTable('sessions', (t) => {
      t.string('secret_hash').primary();
      t.string('key_id').notNullable().references('keys.id').onDelete('CASCADE');
      t.string('created_at').notNullable();
      t.string('expires_at').notNullable();
      t.index(['key_id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('sessions');
  },
};

/** Per-service container limits; null columns follow the server's defaults (core/limits.ts). */
export const serviceLimits: Migration = {
  name: '007_service_limits',
  async up(knex) {
    await knex.schema.alterTable('services', (t) => {
      t.integer('limit_memory_mb');
      t.float('limit_cpus');
      t.integer('limit_pids');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('services', (t) => {
      t.dropColumn('limit_memory_mb');
      t.dropColumn('limit_cpus');
      t.dropColumn('limit_pids');
    });
  },
};

// Deploy on push: one webhook per service (its secret sealed), and the delivery ids already seen
// (so a replayed delivery never deploys twice, across restarts too); both go with the service.
export const webhooks: Migration = {
  name: '009_webhooks',
  async up(knex) {
    await knex.schema.createTable('service_webhooks', (t) => {
      t.string('service_id').primary().references('services.id').onDelete('CASCADE');
      t.text('secret').notNullable();
      t.string('created_at').notNullable();
      t.string('last_delivery_at');
    });
    await knex.schema.createTable('webhook_deliveries', (t) => {
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('delivery_id').notNullable();
      t.string('received_at').notNullable();
      t.primary(['service_id', 'delivery_id']);
      t.index(['received_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('webhook_deliveries');
    await knex.schema.dropTableIfExists('service_webhooks');
  },
};

/** Stores up to this size are rewritten once by 010_log_bounds; larger ones are left as they are. */
const VACUUM_AT_MOST_BYTES = 256 * 1024 * 1024;

// Log lines are trimmed as they are written (deploy/log-book.ts); with auto_vacuum INCREMENTAL the
// pages they free are handed back to the file system by the periodic trim (`PRAGMA
// incremental_vacuum`), so the file shrinks instead of keeping its largest size. A new store gets
// the mode before its first table (store/open.ts); an existing one only through a VACUUM, which
// rewrites the whole file and needs as much free disk again: done here only for a store small
// enough, and a failure (a full disk) leaves the store as it was (freed pages are still reused).
export const logBounds: Migration = {
  name: '010_log_bounds',
  config: { transaction: false },
  async up(knex) {
    const mode = (await knex.raw('PRAGMA auto_vacuum')) as { auto_vacuum: number }[];
    if (mode[0]?.auto_vacuum === 2) return;
    const pages = (await knex.raw('PRAGMA page_count')) as { page_count: number }[];
    const size = (await knex.raw('PRAGMA page_size')) as { page_size: number }[];
    if ((pages[0]?.page_count ?? 0) * (size[0]?.page_size ?? 4096) > VACUUM_AT_MOST_BYTES) return;
    await knex.raw('PRAGMA auto_vacuum = INCREMENTAL');
    await knex.raw('VACUUM').catch(() => undefined);
  },
  async down() {},
};

// Per-project quotas (core/quotas.ts): a row only for a project that overrides a default; a null
// column follows the server's default. The row goes with its project.
export const projectQuotas: Migration = {
  name: '011_project_quotas',
  async up(knex) {
    await knex.schema.createTable('project_quotas', (t) => {
      t.string('project_id').primary().references('projects.id').onDelete('CASCADE');
      t.integer('max_services');
      t.integer('max_backups');
      t.bigInteger('max_backup_bytes');
      t.integer('max_images_per_service');
      t.string('updated_at').notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('project_quotas');
  },
};

/**
 * Generated hostnames are unique to their project and never pass to another one: every service has
 * a generated label (its hostname is `<label>.<rootDomain>`), and every label ever handed out is
 * recorded with the project it was generated for (core/generated-names.ts). Existing services keep
 * the names they answer to today (`<slug>`), oldest first; a later service of another project that
 * shared a slug (its name was routed to the older one) gets `<slug>-<project slug>`.
 * Also the record of the DNS records Berth created (core/dns.ts).
 */
export const namesAndHooks: Migration = {
  name: '013_names_and_hooks',
  async up(knex) {
    await knex.schema.alterTable('services', (t) => {
      t.string('generated_label');
    });
    await knex.schema.createTable('generated_names', (t) => {
      t.string('label').primary();
      t.string('project_id').notNullable(); // no foreign key: the record outlives the project
      t.string('created_at').notNullable();
      t.index(['project_id']);
    });
    const services = (await knex('services')
      .join('projects', 'projects.id', 'services.project_id')
      .select('services.id as id', 'services.slug as slug', 'services.project_id as project_id', 'services.created_at as created_at', 'projects.slug as project_slug')
      .orderBy([{ column: 'services.created_at' }, { column: 'services.id' }])) as { id: string; slug: string; project_id: string; created_at: string; project_slug: string }[];
    const taken = new Set<string>();
    for (const s of services) {
      let label = s.slug.toLowerCase();
      if (taken.has(label)) {
        const base = `${label}-${s.project_slug.toLowerCase()}`.slice(0, 57).replace(/-+$/, '');
        label = base;
        for (let n = 2; taken.has(label); n++) label = `${base}-${n}`;
      }
      taken.add(label);
      await knex('services').where({ id: s.id }).update({ generated_label: label });
      await knex('generated_names').insert({ label, project_id: s.project_id, created_at: s.created_at });
    }
    // The A records Berth created through a DNS provider, so that they go with their domain (no
    // foreign key: the row outlives the domain until the record is removed).
    await knex.schema.createTable('dns_records_created', (t) => {
      t.string('domain_id').notNullable();
      t.string('provider').notNullable();
      t.string('hostname').notNullable();
      t.string('zone').notNullable();
      t.string('host').notNullable();
      t.string('address').notNullable();
      t.string('created_at').notNullable();
      t.primary(['domain_id', 'provider']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('dns_records_created');
    await knex.schema.dropTableIfExists('generated_names');
    await knex.schema.alterTable('services', (t) => {
      t.dropColumn('generated_label');
    });
  },
};
