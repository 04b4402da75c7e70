import type { Knex } from 'knex';
import { Conflict } from '../core/errors.js';
import type { EnvRecord, ServiceRecord, VolumeMount, VolumeRecord } from '../core/records.js';
import type { ServiceRepo } from '../core/ports/store.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { envToRow } from './env-repo.js';
import { readPaged } from './paged-read.js';
import { stringSharer } from './shared-strings.js';

type Row = Record<string, unknown>;

/** Fields stored in a table of their own (`volumes`). */
type OwnTable = 'volumes';
type ColumnField = Exclude<keyof ServiceRecord, OwnTable>;

// Record field -> column. Every field is listed, so a new field without a column fails to compile.
const COLUMN: { [K in ColumnField]: string } = {
  id: 'id',
  projectId: 'project_id',
  name: 'name',
  slug: 'slug',
  kind: 'kind',
  repoFullName: 'repo_full_name',
  repoUrl: 'repo_url',
  dockerImage: 'docker_image',
  branch: 'branch',
  rootDir: 'root_dir',
  githubToken: 'github_token',
  installCommand: 'install_command',
  buildCommand: 'build_command',
  startCommand: 'start_command',
  staticOutput: 'static_output',
  buildMethod: 'build_method',
  dockerfilePath: 'dockerfile_path',
  detectedBuildMethod: 'detected_build_method',
  runtimeMode: 'runtime_mode',
  internalPort: 'internal_port',
  hostPort: 'host_port',
  databaseEngine: 'database_engine',
  databasePublicEnabled: 'database_public_enabled',
  databasePublicHostname: 'database_public_hostname',
  generatedLabel: 'generated_label',
  postgresLogicalReplicationEnabled: 'pg_logical_replication',
  memoryLimitMb: 'limit_memory_mb',
  cpuLimit: 'limit_cpus',
  pidsLimit: 'limit_pids',
  status: 'status',
  reachable: 'reachable',
  framework: 'framework',
  lastDeployedAt: 'last_deployed_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  files: 'config_files',
  deployStrategy: 'deploy_strategy',
  releaseCommand: 'release_command',
  releaseTimeoutSeconds: 'release_timeout_seconds',
  replicas: 'replicas',
  placement: 'placement',
  nodeId: 'node_id',
};
const BOOLEAN_FIELDS = new Set<keyof ServiceRecord>(['databasePublicEnabled', 'postgresLogicalReplicationEnabled', 'reachable']);
const FIELDS = Object.keys(COLUMN) as ColumnField[];
/** Fields whose values repeat across services (enumerations, references, common commands): one copy per read. */
const REPEATING_FIELDS = new Set<keyof ServiceRecord>([
  'projectId',
  'kind',
  'repoFullName',
  'repoUrl',
  'dockerImage',
  'branch',
  'rootDir',
  'installCommand',
  'buildCommand',
  'startCommand',
  'staticOutput',
  'buildMethod',
  'dockerfilePath',
  'detectedBuildMethod',
  'runtimeMode',
  'databaseEngine',
  'status',
  'framework',
  'deployStrategy',
  'nodeId',
]);

interface VolumeRow {
  project_id: string;
  name: string;
  service_id: string | null;
  mount_path: string | null;
  read_only: number | boolean;
  position: number;
  created_at: string;
}

function volumeRecord(r: VolumeRow): VolumeRecord {
  return { projectId: r.project_id, name: r.name, serviceId: r.service_id, mountPath: r.mount_path, readOnly: Boolean(r.read_only), createdAt: r.created_at };
}

/** The mounts of each service among the rows, in the order the service lists them. */
function mountsByService(rows: readonly VolumeRow[]): Map<string, VolumeMount[]> {
  const out = new Map<string, VolumeMount[]>();
  for (const r of [...rows].sort((a, b) => a.position - b.position)) {
    if (r.service_id === null || r.mount_path === null) continue;
    const list = out.get(r.service_id) ?? [];
    list.push({ name: r.name, mountPath: r.mount_path, readOnly: Boolean(r.read_only) });
    out.set(r.service_id, list);
  }
  return out;
}

/**
 * Makes the service's mounts exactly `volumes` (inside the caller's transaction): a volume left out
 * is detached (kept, no service), a kept one of the project is attached, a new one recorded. A
 * volume another service mounts is refused here too, so two requests at once cannot both take it.
 */
async function writeMounts(trx: Knex.Transaction, service: Pick<ServiceRecord, 'id' | 'projectId'>, volumes: readonly VolumeMount[], at: string): Promise<void> {
  const names = volumes.map((v) => v.name);
  await trx('volumes').where({ service_id: service.id }).whereNotIn('name', names).update({ service_id: null, mount_path: null, position: 0 });
  for (const [position, v] of volumes.entries()) {
    const existing = (await trx('volumes').where({ project_id: service.projectId, name: v.name }).first()) as VolumeRow | undefined;
    if (existing && existing.service_id !== null && existing.service_id !== service.id) {
      throw new Conflict(`volume ${v.name} is mounted by another service of this project: a volume belongs to one service at a time`, 'volume_in_use');
    }
    const row = { service_id: service.id, mount_path: v.mountPath, read_only: v.readOnly, position };
    if (existing) await trx('volumes').where({ project_id: service.projectId, name: v.name }).update(row);
    else await trx('volumes').insert({ project_id: service.projectId, name: v.name, created_at: at, ...row });
  }
}

export function serviceRepo(knex: Knex, box: SecretBox): ServiceRepo {
  function toRow(patch: Partial<ServiceRecord>): Row {
    const row: Row = {};
    for (const field of FIELDS) {
      if (!(field in patch)) continue;
      let value: unknown = patch[field];
      if (field === 'githubToken' && typeof value === 'string') value = box.seal(value);
      if (field === 'files') value = patch.files && patch.files.length > 0 ? box.seal(JSON.stringify(patch.files)) : null;
      if (field === 'releaseCommand') value = patch.releaseCommand ? JSON.stringify(patch.releaseCommand) : null;
      if (field === 'placement') value = patch.placement && Object.keys(patch.placement).length > 0 ? JSON.stringify(patch.placement) : null;
      row[COLUMN[field]] = value;
    }
    return row;
  }

  /**
   * Built in one go with Object.fromEntries: the read cache keeps every service's record, and an
   * object given its 34 fields one keyed store at a time falls into V8's dictionary mode (about
   * 1.6 kB each, against 0.3 kB: 13 MB at 10,000 services).
   */
  function toRecord(row: Row, mounts: ReadonlyMap<string, VolumeMount[]>, share: ReturnType<typeof stringSharer> = (v) => v): ServiceRecord {
    return Object.fromEntries([
      ...FIELDS.map((field) => {
        let value = row[COLUMN[field]];
        if (REPEATING_FIELDS.has(field)) value = share(value);
        if (BOOLEAN_FIELDS.has(field)) value = Boolean(value);
        if (field === 'githubToken' && typeof value === 'string') value = box.open(value);
        if (field === 'files') value = typeof value === 'string' ? JSON.parse(box.open(value)) : [];
        if (field === 'releaseCommand' && typeof value === 'string') value = JSON.parse(value);
        if (field === 'deployStrategy') value = value ?? 'rolling';
        if (field === 'replicas') value = value ?? 1;
        if (field === 'placement') value = typeof value === 'string' ? JSON.parse(value) : {};
        return [field, value ?? null];
      }),
      ['volumes', mounts.get(row.id as string) ?? []],
    ]) as unknown as ServiceRecord;
  }

  async function mountsOf(projectIds: readonly string[] | undefined): Promise<Map<string, VolumeMount[]>> {
    const rows = await readPaged<VolumeRow>(knex, (db) => {
      const q = db('volumes')
        .select('*')
        .whereNotNull('service_id')
        .orderBy([{ column: 'project_id' }, { column: 'name' }]);
      return projectIds ? q.whereIn('project_id', projectIds as string[]) : q;
    });
    return mountsByService(rows);
  }

  return {
    async list(projectIds) {
      const [rows, mounts] = await Promise.all([
        readPaged<Row>(knex, (db) => {
          const q = db('services')
            .select('*')
            .orderBy([{ column: 'created_at' }, { column: 'id' }]);
          return projectIds ? q.whereIn('project_id', projectIds as string[]) : q;
        }),
        mountsOf(projectIds),
      ]);
      const share = stringSharer();
      return rows.map((r) => toRecord(r, mounts, share));
    },
    async get(id) {
      const row = (await knex('services').where({ id }).first()) as Row | undefined;
      if (!row) return null;
      return toRecord(row, mountsByService((await knex('volumes').where({ service_id: id })) as VolumeRow[]));
    },
    async projectVolumes(projectId) {
      const rows = (await knex('volumes')
        .where({ project_id: projectId })
        .orderBy([{ column: 'created_at' }, { column: 'name' }])) as VolumeRow[];
      return rows.map(volumeRecord);
    },
    async slugsInProject(projectId) {
      const rows = (await knex('services').select('slug').where({ project_id: projectId })) as { slug: string }[];
      return new Set(rows.map((r) => r.slug));
    },
    async namesInProject(projectId) {
      const rows = (await knex('services').select('name').where({ project_id: projectId })) as { name: string }[];
      return new Set(rows.map((r) => r.name));
    },
    async usedHostPorts() {
      const rows = (await knex('services').select('host_port').whereNotNull('host_port')) as { host_port: number }[];
      return new Set(rows.map((r) => r.host_port));
    },
    async withGeneratedLabel(label) {
      const rows = (await knex('services').select('id').where({ generated_label: label })) as { id: string }[];
      return rows.map((r) => r.id);
    },
    async withDatabaseHostname(hostname) {
      const rows = (await knex('services').select('id').whereRaw('lower(database_public_hostname) = ?', [hostname.toLowerCase()])) as { id: string }[];
      return rows.map((r) => r.id);
    },
    async insert(service: ServiceRecord, env: readonly EnvRecord[]) {
      await knex.transaction(async (trx) => {
        await trx('services').insert(toRow(service));
        if (service.volumes.length > 0) await writeMounts(trx, service, service.volumes, service.createdAt);
        if (service.generatedLabel !== null) {
          // the label is the project's from now on (its own earlier record, when it had one, stays)
          await trx('generated_names').insert({ label: service.generatedLabel, project_id: service.projectId, created_at: service.createdAt }).onConflict('label').ignore();
        }
        if (env.length > 0) await trx('env_vars').insert(env.map((e) => envToRow(e, box)));
      });
    },
    async generatedName(label) {
      const row = (await knex('generated_names').where({ label }).first()) as { label: string; project_id: string; created_at: string } | undefined;
      return row ? { label: row.label, projectId: row.project_id, createdAt: row.created_at } : null;
    },
    async generatedNames() {
      const rows = await readPaged<{ label: string; project_id: string; created_at: string }>(knex, (db) =>
        db('generated_names')
          .select('*')
          .orderBy([{ column: 'created_at' }, { column: 'label' }]),
      );
      return rows.map((r) => ({ label: r.label, projectId: r.project_id, createdAt: r.created_at }));
    },
    async assignGeneratedLabel(serviceId, projectId, label, at) {
      await knex.transaction(async (trx) => {
        await trx('generated_names').insert({ label, project_id: projectId, created_at: at }).onConflict('label').ignore();
        await trx('services').where({ id: serviceId }).update({ generated_label: label });
      });
    },
    async releaseGeneratedName(label) {
      return (await knex('generated_names').where({ label }).delete()) > 0;
    },
    async update(id, patch) {
      const row = toRow(patch);
      const volumes = patch.volumes;
      if (volumes === undefined) {
        if (Object.keys(row).length > 0) await knex('services').where({ id }).update(row);
        return;
      }
      await knex.transaction(async (trx) => {
        const current = (await trx('services').select('project_id').where({ id }).first()) as { project_id: string } | undefined;
        if (!current) return;
        if (Object.keys(row).length > 0) await trx('services').where({ id }).update(row);
        await writeMounts(trx, { id, projectId: current.project_id }, volumes, patch.updatedAt ?? new Date().toISOString());
      });
    },
    async deleteCascade(id, keepVolumes = false) {
      await knex.transaction(async (trx) => {
        if (keepVolumes) await trx('volumes').where({ service_id: id }).update({ service_id: null, mount_path: null, position: 0 });
        else await trx('volumes').where({ service_id: id }).delete();
        await trx('services').where({ id }).delete();
      });
    },
  };
}
