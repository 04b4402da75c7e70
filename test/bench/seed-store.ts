// Seeds a data dir straight through the store (one transaction): thousands of services in
// seconds, where the API takes about 30 ms per service. Each project holds 10 services like the
// ones api-bench creates through the API: 6 git services (two variables each, one referencing
// another service's variable), 2 image services and 2 databases (postgres, redis), each web
// service with a custom domain. The records are built as core/services.ts builds them
// (serviceSpec), so the daemon reads what it would have written itself.
import knexFactory from 'knex';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { initialDatabaseEnv } from '../../daemon/core/engines.js';
import { newId } from '../../daemon/core/ids.js';
import type { DomainRecord, EnvRecord, ProjectRecord, ServiceRecord } from '../../daemon/core/records.js';
import { serviceSpec, type NewServiceInput } from '../../daemon/core/service-spec.js';
import { loadOrCreateSecretKey, secretBoxFromKey } from '../../daemon/crypto/secret-box.js';
import { tokenHasherFromKey } from '../../daemon/crypto/token-hash.js';
import { DB_FILE, openStore, storeOver } from '../../daemon/store/open.js';

export const SERVICES_PER_PROJECT = 10;

function inputsFor(n: number): NewServiceInput[] {
  const git = Array.from({ length: 6 }, (_, i): NewServiceInput => ({ name: `app-${i}`, repoFullName: `acme/app-${n}-${i}` }));
  const images = Array.from({ length: 2 }, (_, i): NewServiceInput => ({ name: `web-${i}`, repoUrl: 'docker-image', dockerImage: 'nginx:1.27' }));
  const dbs = ['postgres', 'redis'].map((engine): NewServiceInput => ({ name: engine, repoFullName: `database:${engine}`, repoUrl: 'database' }));
  return [...git, ...images, ...dbs];
}

export interface Seeded {
  /** A git service with variables and a domain (the one the overview is read for). */
  serviceId: string;
  services: number;
  domains: number;
}

/**
 * `services` (a multiple of 10) services in `dataDir`, plus settings; `firstHostPort` onwards are
 * given out as host ports. Plain HTTP routing (`httpsMode` http): Caddy then loads the routes
 * without issuing a certificate per hostname.
 */
export async function seedStore(dataDir: string, services: number, firstHostPort = 20000): Promise<Seeded> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secretKey = loadOrCreateSecretKey(join(dataDir, 'secret.key'));
  const box = secretBoxFromKey(secretKey);
  const tokens = tokenHasherFromKey(secretKey);
  await (await openStore(dataDir, box, tokens)).close(); // the schema, as the daemon migrates it
  const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(dataDir, DB_FILE) }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
  let serviceId = '';
  let domains = 0;
  let hostPort = firstHostPort;
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  try {
    await knex.transaction(async (trx) => {
      const store = storeOver(trx, box, tokens);
      await store.settings.set('httpsMode', 'http', new Date(t0).toISOString());
      for (let p = 0; p < services / SERVICES_PER_PROJECT; p++) {
        const at = new Date(t0 + p * 1000).toISOString();
        const project: ProjectRecord = { id: newId(), name: `Project ${p}`, slug: `project-${p}`, description: '', createdAt: at, updatedAt: at };
        await store.projects.insert(project);
        let postgres = '';
        for (const [i, input] of inputsFor(p).reverse().entries()) {
          const spec = serviceSpec(input);
          const created = new Date(t0 + p * 1000 + i).toISOString();
          const service: ServiceRecord = {
            ...spec,
            memoryLimitMb: null,
            cpuLimit: null,
            pidsLimit: null,
            id: newId(),
            projectId: project.id,
            slug: input.name,
            generatedLabel: `${input.name}-${project.slug}`,
            hostPort: spec.internalPort !== null ? hostPort++ : null,
            status: 'idle',
            reachable: false,
            framework: null,
            lastDeployedAt: null,
            detectedBuildMethod: null,
            createdAt: created,
            updatedAt: created,
          };
          const vars = spec.databaseEngine
            ? initialDatabaseEnv(spec.databaseEngine, new Map())
            : spec.kind === 'git'
              ? new Map([
                  ['NODE_ENV', 'production'],
                  ['DATABASE_PASSWORD', `\${${postgres}.POSTGRES_PASSWORD}`],
                ])
              : new Map<string, string>();
          if (spec.databaseEngine === 'postgres') postgres = service.slug;
          const env: EnvRecord[] = [...vars].map(([key, value]) => ({ id: newId(), serviceId: service.id, key, value, createdAt: created, updatedAt: created }));
          await store.services.insert(service, env);
          if (spec.kind !== 'database') {
            const domain: DomainRecord = { id: newId(), serviceId: service.id, hostname: `${service.slug}-${p}.bench.example.com`, status: 'active', createdAt: created, updatedAt: created };
            await store.domains.insert(domain);
            domains++;
          }
          if (!serviceId && spec.kind === 'git') serviceId = service.id;
        }
      }
    });
  } finally {
    await knex.destroy();
  }
  return { serviceId, services, domains };
}
