// Opens the SQLite store in the data dir, runs migrations, and builds one repository per aggregate.
import knexFactory, { type Knex } from 'knex';
import { join } from 'node:path';
import { NotFound } from '../core/errors.js';
import type { Store } from '../core/ports/store.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { TokenHasher } from '../crypto/token-hash.js';
import { migrationSource } from './migrations.js';
import { keyRepo } from './keys-repo.js';
import { sessionRepo } from './sessions-repo.js';
import { nodeJoinRepo } from './node-joins-repo.js';
import { projectRepo } from './projects-repo.js';
import { serviceRepo } from './services-repo.js';
import { envRepo } from './env-repo.js';
import { domainRepo } from './domains-repo.js';
import { deploymentRepo } from './deployments-repo.js';
import { settingsRepo } from './settings-repo.js';
import { logsRepo } from './logs-repo.js';
import { aiProviderRepo } from './ai-providers-repo.js';
import { dnsProviderRepo } from './dns-providers-repo.js';
import { backupsRepo } from './backups-repo.js';
import { webhookRepo } from './webhooks-repo.js';
import { quotaRepo } from './quotas-repo.js';
import { jobsRepo } from './jobs-repo.js';
import { checksRepo } from './checks-repo.js';
import { execRepo } from './execs-repo.js';
import { serverBackupsRepo } from './server-backups-repo.js';
import { auditRepo } from './audit-repo.js';
import { statusPagesRepo } from './status-pages-repo.js';
import { metricsRepo } from './metrics-repo.js';

export const DB_FILE = 'berth.sqlite';

export async function openStore(dataDir: string, box: SecretBox, tokens: TokenHasher): Promise<Store> {
  const knex = knexFactory({
    client: 'sqlite3',
    connection: { filename: join(dataDir, DB_FILE) },
    useNullAsDefault: true,
    // One connection: SQLite serialises writers anyway, and one connection keeps transactions simple.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: { run(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) {
        // a new file only (a no-op once it has tables): pages freed by log trims go back to the disk
        conn.run('PRAGMA auto_vacuum = INCREMENTAL', (e0) => {
          if (e0) return done(e0, conn);
          conn.run('PRAGMA foreign_keys = ON', (e1) => {
            if (e1) return done(e1, conn);
            conn.run('PRAGMA journal_mode = WAL', (e2) => {
              if (e2) return done(e2, conn);
              // The CLI may write (keys) while the daemon runs: wait for the lock instead of failing.
              conn.run('PRAGMA busy_timeout = 5000', (e3) => done(e3, conn));
            });
          });
        });
      },
    },
  });
  await knex.migrate.latest({ migrationSource: migrationSource({ tokens }) });
  return storeOver(knex, box, tokens);
}

const isForeignKeyViolation = (err: unknown) => err instanceof Error && /FOREIGN KEY constraint failed/.test(err.message);

/**
 * A write that names a row another request deleted meanwhile (a domain added while its service is
 * deleted) answers like a request that came after the delete: 404, never a 500 with SQL in the log.
 */
function deletedMeanwhileIsNotFound<R extends object>(repo: R): R {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(repo) as [string, unknown][]) {
    if (typeof value !== 'function') {
      out[name] = value;
      continue;
    }
    out[name] = (...args: unknown[]) => {
      const result = (value as (...a: unknown[]) => unknown).apply(repo, args);
      if (typeof (result as PromiseLike<unknown> | null)?.then !== 'function') return result;
      return Promise.resolve(result).catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw new NotFound('what this request refers to no longer exists (it was deleted meanwhile)');
        throw err;
      });
    };
  }
  return out as R;
}

export function storeOver(knex: Knex, box: SecretBox, tokens: TokenHasher): Store {
  const guard = deletedMeanwhileIsNotFound;
  return {
    keys: guard(keyRepo(knex)),
    sessions: guard(sessionRepo(knex)),
    projects: guard(projectRepo(knex)),
    services: guard(serviceRepo(knex, box)),
    env: guard(envRepo(knex, box)),
    domains: guard(domainRepo(knex)),
    deployments: guard(deploymentRepo(knex)),
    settings: guard(settingsRepo(knex, box)),
    logs: logsRepo(knex), // drops lines of a deleted service itself
    aiProviders: guard(aiProviderRepo(knex, box)),
    dnsProviders: guard(dnsProviderRepo(knex, box)),
    backups: guard(backupsRepo(knex)),
    webhooks: guard(webhookRepo(knex, box)),
    quotas: guard(quotaRepo(knex)),
    jobs: guard(jobsRepo(knex)),
    checks: guard(checksRepo(knex)),
    execs: guard(execRepo(knex)),
    nodeJoins: guard(nodeJoinRepo(knex)),
    serverBackups: serverBackupsRepo(knex),
    audit: auditRepo(knex), // names no other row: nothing to turn into a 404
    statusPages: guard(statusPagesRepo(knex)),
    metrics: metricsRepo(knex), // likewise: a deleted service's series go in its prune
    hashToken: (token) => tokens.hash(token),
    isUniqueViolation: (err) => err instanceof Error && /UNIQUE constraint failed/.test(err.message),
    close: () => knex.destroy(),
  };
}
