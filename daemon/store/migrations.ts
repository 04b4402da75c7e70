// Schema migrations, run at every start (knex records which have run). Listed in code so they
// ship inside the compiled build.
// One file per group (store/migrations/); the names and the order below are what existing
// databases have recorded: never rename or reorder, only append.
import type { Knex } from 'knex';
import { aiProviders, backups, deploymentsRun, dnsProviders, initial } from './migrations/001-005.js';
import { keyedKeyHashes, logBounds, namesAndHooks, projectQuotas, serviceLimits, sessions, webhooks } from './migrations/006-013.js';
import { serviceState } from './migrations/014-service-state.js';
import { jobs } from './migrations/015-jobs.js';
import { execs } from './migrations/016-execs.js';
import { volumeBackups } from './migrations/017-volume-backups.js';
import { replicas } from './migrations/018-replicas.js';
import { nodeJoins } from './migrations/019-node-joins.js';
import { serverBackups } from './migrations/020-server-backups.js';
import { auditLog } from './migrations/021-audit.js';
import { backupVerification } from './migrations/022-backup-verification.js';
import { uptimeChecks } from './migrations/023-uptime-checks.js';
import { metricsHistory } from './migrations/024-metrics-history.js';
import { statusPages } from './migrations/025-status-pages.js';
import { serviceNode } from './migrations/026-service-node.js';
import { serviceNameIndexes } from './migrations/027-service-name-indexes.js';
import type { Migration, MigrationContext } from './migrations/migration.js';

export type { MigrationContext } from './migrations/migration.js';

export function migrationSource(ctx: MigrationContext): Knex.MigrationSource<Migration> {
  const migrations: Migration[] = [
    initial,
    deploymentsRun,
    aiProviders,
    dnsProviders,
    backups,
    keyedKeyHashes(ctx),
    serviceLimits,
    sessions,
    webhooks,
    logBounds,
    projectQuotas,
    namesAndHooks,
    serviceState,
    jobs,
    execs,
    volumeBackups,
    replicas,
    nodeJoins,
    serverBackups,
    auditLog,
    backupVerification,
    uptimeChecks,
    metricsHistory,
    statusPages,
    serviceNode,
    serviceNameIndexes,
  ];
  return {
    getMigrations: async () => migrations,
    getMigrationName: (m) => m.name,
    getMigration: async (m) => m,
  };
}
