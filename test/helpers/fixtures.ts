// A small world to act on: two projects, each with a git service (one env var, one domain), a
// database service and a worker. Names are unique per call so many worlds can share a daemon.
import { randomBytes } from 'node:crypto';
import type { BerthClient } from '../../shared/client.js';
import type { Domain, EnvVar, Project, Service } from '../../shared/types.js';

export interface ProjectWorld {
  project: Project;
  web: Service;
  db: Service;
  worker: Service;
  env: EnvVar;
  domain: Domain;
}

export function uniq(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export async function makeProjectWorld(admin: BerthClient, label = 'p'): Promise<ProjectWorld> {
  const { project } = await admin.createProject({ name: uniq(label), description: 'fixture' });
  const { service: db } = await admin.createService(project.id, {
    name: 'db',
    repoFullName: 'database:postgres',
    repoUrl: 'database',
    branch: 'main',
    internalPort: 5432,
    databasePublicEnabled: false,
    postgresLogicalReplicationEnabled: false,
    env: [],
  });
  const { service: web } = await admin.createService(project.id, {
    name: 'web',
    repoFullName: 'acme/web',
    branch: 'main',
    internalPort: 3000,
    env: [{ key: 'DATABASE_URL', value: '${db.DATABASE_URL}' }],
  });
  const { service: worker } = await admin.createService(project.id, {
    name: 'worker',
    repoUrl: 'https://git.example.com/acme/worker.git',
    runtimeMode: 'worker',
  });
  const { domain } = await admin.addDomain(web.id, `${uniq('app')}.example.com`);
  const { env } = await admin.overview(web.id);
  return { project, web, db, worker, env: env[0]!, domain };
}
