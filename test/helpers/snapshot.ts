// Reads the daemon's SQLite file through a separate connection, so a test can prove that a refused
// request changed nothing.
import knexFactory from 'knex';
import { join } from 'node:path';
import { FIRING_SETTING } from '../../daemon/core/metric-alerts.js';
import { DB_FILE } from '../../daemon/store/open.js';

const TABLES = [
  'keys',
  'projects',
  'services',
  'env_vars',
  'domains',
  'deployments',
  'deployment_logs',
  'settings',
  'ai_providers',
  'dns_providers',
  'backups',
  'backup_settings',
  'imports',
  'service_webhooks',
  'webhook_deliveries',
  'volumes',
  'jobs',
  'job_runs',
  'job_run_logs',
  'checks',
  'execs',
  'server_backups',
];

/**
 * A check's settings, without what its runs write (state, last result, failures, the open incident):
 * checks run in the background, on their own timers, whatever a request did. Their incidents are
 * left out for the same reason.
 */
function checkSettings(row: Record<string, unknown>): Record<string, unknown> {
  const { status: _s, last_checked_at: _a, last_response_ms: _r, last_error: _e, certificate_days_left: _c, consecutive_failures: _f, open_incident_id: _i, ...settings } = row;
  return settings;
}

export async function snapshotStore(dataDir: string): Promise<Record<string, unknown[]>> {
  const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(dataDir, DB_FILE) }, useNullAsDefault: true });
  try {
    const out: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      // lastUsedAt moves on every authenticated call: it is bookkeeping, not state a request changes
      const rows = (await knex(table).select('*').orderBy('rowid')) as Record<string, unknown>[];
      // which metric alerts are firing is written by the sampler in the background too
      out[table] =
        table === 'keys'
          ? rows.map(({ last_used_at: _ignored, ...rest }) => rest)
          : table === 'checks'
            ? rows.map(checkSettings)
            : table === 'settings'
              ? rows.filter((r) => r.key !== FIRING_SETTING)
              : rows;
    }
    return out;
  } finally {
    await knex.destroy();
  }
}

/** Waits until the store stops changing (what a request started in the background has ended), up to 30 s. */
export async function storeSettled(dataDir: string): Promise<void> {
  let last = JSON.stringify(await snapshotStore(dataDir));
  for (const until = Date.now() + 30_000; Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 250));
    const now = JSON.stringify(await snapshotStore(dataDir));
    if (now === last) return;
    last = now;
  }
  throw new Error('the store kept changing for 30 s');
}

/** Runs fn with a knex connection of its own to the daemon's SQLite file (for reading stored rows). */
export async function withKnex<T>(dataDir: string, fn: (knex: ReturnType<typeof knexFactory>) => Promise<T>): Promise<T> {
  const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(dataDir, DB_FILE) }, useNullAsDefault: true });
  try {
    return await fn(knex);
  } finally {
    await knex.destroy();
  }
}
