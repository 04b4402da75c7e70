// Opens the SQLite store in the data dir, runs migrations, and builds one repository per aggregate.
import knexFactory, { type Knex } from 'knex';
import { join } from 'node:path';
import type { Store } from '../core/store.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { TokenHasher } from '../crypto/token-hash.js';
import { migrationSource } from './migrations.js';
import { keyRepo } from './keys-repo.js';
import { sessionRepo } from './sessions-repo.js';
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
        conn.run('PRAGMA foreign_keys = ON', (e1) => {
          if (e1) return done(e1, conn);
          conn.run('PRAGMA journal_mode = WAL', (e2) => {
            if (e2) return done(e2, conn);
            // The CLI may write (keys) while the daemon runs: wait for the lock instead of failing.
            conn.run('PRAGMA busy_timeout = 5000', (e3) => done(e3, conn));
          });
        });
      },
    },
  });
  await knex.migrate.latest({ migrationSource: migrationSource({ tokens }) });
  return storeOver(knex, box, tokens);
}

export function storeOver(knex: Knex, box: SecretBox, tokens: TokenHasher): Store {
  return {
    keys: keyRepo(knex),
    sessions: sessionRepo(knex),
    projects: projectRepo(knex),
    services: serviceRepo(knex, box),
    env: envRepo(knex, box),
    domains: domainRepo(knex),
    deployments: deploymentRepo(knex),
    settings: settingsRepo(knex, box),
    logs: logsRepo(knex),
    aiProviders: aiProviderRepo(knex, box),
    dnsProviders: dnsProviderRepo(knex, box),
    backups: backupsRepo(knex),
    webhooks: webhookRepo(knex, box),
    hashToken: (token) => tokens.hash(token),
    isUniqueViolation: (err) => err instanceof Error && /UNIQUE constraint failed/.test(err.message),
    close: () => knex.destroy(),
  };
}
