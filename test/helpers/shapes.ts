// Field-exact response shapes, transcribed from the spec's resource tables. `expectShape` fails on
// a missing field, an extra field, or a value of the wrong type.
import { expect } from 'chai';

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type FieldType =
  | 'string'
  | 'string?'
  | 'integer'
  | 'integer?'
  | 'number'
  | 'boolean'
  | 'timestamp'
  | 'timestamp?'
  | { enum: readonly (string | boolean | null)[] }
  | { array: Shape }
  | { arrayOf: 'string' }
  | { object: Shape }
  /** An object of any keys whose values are all strings (labels). */
  | { mapOf: 'string' }
  | { oneOf: FieldType[] };

export type Shape = Record<string, FieldType>;

function check(value: unknown, type: FieldType, path: string): void {
  if (typeof type === 'string') {
    const nullable = type.endsWith('?');
    if (nullable && value === null) return;
    const base = type.replace('?', '');
    if (base === 'string') expect(value, path).to.be.a('string');
    else if (base === 'integer') expect(Number.isInteger(value), `${path} should be an integer, got ${JSON.stringify(value)}`).to.equal(true);
    else if (base === 'number') expect(Number.isFinite(value), `${path} should be a finite number, got ${JSON.stringify(value)}`).to.equal(true);
    else if (base === 'boolean') expect(value, path).to.be.a('boolean');
    else if (base === 'timestamp') expect(value, path).to.be.a('string').and.match(TIMESTAMP);
    return;
  }
  if ('enum' in type) expect(type.enum, `${path}=${JSON.stringify(value)}`).to.include(value);
  else if ('array' in type) {
    expect(value, path).to.be.an('array');
    (value as unknown[]).forEach((item, i) => expectShape(item, type.array, `${path}[${i}]`));
  } else if ('arrayOf' in type) {
    expect(value, path).to.be.an('array');
    for (const item of value as unknown[]) expect(item, path).to.be.a('string');
  } else if ('object' in type) expectShape(value, type.object, path);
  else if ('mapOf' in type) {
    expect(value, path).to.be.an('object').and.not.be.an('array');
    for (const [k, v] of Object.entries(value as object)) expect(v, `${path}.${k}`).to.be.a('string');
  } else {
    const errors: string[] = [];
    for (const option of type.oneOf) {
      try {
        check(value, option, path);
        return;
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    expect.fail(`${path} matches none of its types: ${errors.join('; ')}`);
  }
}

export function expectShape(value: unknown, shape: Shape, path = 'body'): void {
  expect(value, path).to.be.an('object');
  expect(Object.keys(value as object).sort(), `${path} fields`).to.deep.equal(Object.keys(shape).sort());
  for (const [field, type] of Object.entries(shape)) check((value as Record<string, unknown>)[field], type, `${path}.${field}`);
}

export const SERVICE: Shape = {
  id: 'string',
  projectId: 'string',
  name: 'string',
  slug: 'string',
  repoFullName: 'string?',
  repoUrl: 'string?',
  dockerImage: 'string?',
  branch: 'string',
  rootDir: 'string?',
  hasGithubToken: 'boolean',
  installCommand: 'string?',
  buildCommand: 'string?',
  startCommand: 'string?',
  staticOutput: 'string?',
  buildMethod: { enum: ['auto', 'dockerfile', 'autobuild'] },
  dockerfilePath: 'string?',
  detectedBuildMethod: { enum: ['dockerfile', 'autobuild', null] },
  runtimeMode: { enum: ['web', 'worker', 'static'] },
  internalPort: 'integer?',
  hostPort: 'integer?',
  databasePublicEnabled: 'boolean',
  databasePublicHostname: 'string?',
  postgresLogicalReplicationEnabled: 'boolean',
  status: { enum: ['idle', 'building', 'active', 'failed'] },
  reachable: 'boolean',
  localUrl: 'string',
  primaryUrl: 'string',
  preferredDomain: 'string?',
  framework: 'string?',
  lastDeployedAt: 'timestamp?',
  createdAt: 'timestamp',
  updatedAt: 'timestamp',
  // not in the spec: the generated hostname (docs/apps.md, Reverse proxy: generated names)
  generatedHostname: 'string?',
  // not in the spec: the container limits (docs/operations.md, Container limits)
  limits: { object: { memoryMb: 'integer', cpus: 'number', pids: 'integer' } },
  // not in the spec: issue 28's state (docs/apps.md, Volumes, config files, deploy strategy and release command)
  volumes: { array: { name: 'string', mountPath: 'string', readOnly: 'boolean', sizeBytes: 'integer?' } },
  files: { array: { path: 'string', content: 'string', mode: 'string' } },
  deployStrategy: { enum: ['rolling', 'recreate'] },
  releaseCommand: { oneOf: [{ arrayOf: 'string' }, { enum: [null] }] },
  releaseTimeoutSeconds: 'integer',
  replicas: 'integer',
  placement: { object: { nodeLabels: { mapOf: 'string' } } },
  // not in the spec: the Swarm node a database was created on (docs/swarm.md, A database on another node)
  nodeId: 'string?',
};

export const PROJECT: Shape = {
  id: 'string',
  name: 'string',
  slug: 'string',
  description: 'string',
  status: { enum: ['idle', 'active'] },
  serviceCount: 'integer',
  lastUpdatedAt: 'timestamp',
  services: { array: SERVICE },
};

export const ENV_VAR: Shape = {
  id: 'string',
  key: 'string',
  hasValue: 'boolean',
  value: 'string',
  resolvedValue: 'string',
  createdAt: 'timestamp',
  updatedAt: 'timestamp',
};

export const DOMAIN: Shape = {
  id: 'string',
  serviceId: 'string',
  hostname: 'string',
  status: { enum: ['active'] },
  createdAt: 'timestamp',
  updatedAt: 'timestamp',
};

export const DEPLOYMENT: Shape = {
  id: 'string',
  serviceId: 'string',
  commitSha: 'string?',
  status: { enum: ['queued', 'building', 'running', 'superseded', 'failed', 'aborted'] },
  trigger: { enum: ['manual', 'webhook', 'rollback'] },
  imageTag: 'string?',
  containerName: 'string?',
  startedAt: 'timestamp?',
  finishedAt: 'timestamp?',
  createdAt: 'timestamp',
};

export const PROXY: Shape = { ok: 'boolean', detail: 'string' };

export const KEY: Shape = {
  id: 'string',
  name: 'string',
  access: { enum: ['read', 'write'] },
  projects: { oneOf: [{ enum: ['all'] }, { arrayOf: 'string' }] },
  createdAt: 'timestamp',
  lastUsedAt: 'timestamp?',
};

export const SUGGESTION: Shape = { key: 'string', label: 'string' };
export const DATABASE_VARIABLE: Shape = {
  key: 'string',
  value: 'string',
  label: 'string',
  dbType: { enum: ['postgres', 'timescale', 'mysql', 'redis', 'mongodb', 'clickhouse'] },
};
