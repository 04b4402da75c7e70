// Input checks at the edge: zod schemas for request bodies, with one readable message per failure.
// Each schema is typed against the core input it feeds (`satisfies z.ZodType<...>`), so routes hand
// the parsed value on without a cast.
import { z } from 'zod';
import { BUILD_METHODS, RUNTIME_MODES } from '../../shared/constants.js';
import type { BuildMethod, ConfigFileInput, DeployStrategy, RuntimeMode, ServiceVolumeInput } from '../../shared/types.js';
import { InvalidInput } from '../core/errors.js';
import type { NewKey } from '../core/keys.js';
import type { ProjectInput } from '../core/projects.js';
import type { NewServiceInput } from '../core/service-spec.js';
import type { ServicePatch } from '../core/services.js';

export function parse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
  throw new InvalidInput(`${where}: ${issue.message}`);
}

const name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const optionalText = (max: number) => text(max).nullable().optional();
const port = z.number().int().min(1).max(65535);

export const projectCreate = z.object({ name, description: text(2000).optional() }) satisfies z.ZodType<ProjectInput>;
export const projectPatch = z
  .object({ name: name.optional(), description: text(2000).optional() })
  .refine((v) => v.name !== undefined || v.description !== undefined, 'give name or description') satisfies z.ZodType<Partial<ProjectInput>>;

export const keyCreate = z.object({
  name: text(100).optional(),
  access: z.enum(['read', 'write']),
  projects: z.union([z.literal('all'), z.array(text(100)).min(1, 'must list at least one project id').max(1000)]),
}) satisfies z.ZodType<NewKey>;

export const envEntry = z.object({ key: text(256), value: text(65536) });

const serviceFields = {
  repoFullName: optionalText(300),
  repoUrl: optionalText(2048),
  dockerImage: optionalText(512),
  branch: text(255).optional(),
  rootDir: optionalText(1024),
  githubToken: optionalText(4096),
  installCommand: optionalText(4096),
  buildCommand: optionalText(4096),
  startCommand: optionalText(4096),
  staticOutput: optionalText(1024),
  buildMethod: z.enum(BUILD_METHODS as readonly [BuildMethod, ...BuildMethod[]]).optional(),
  dockerfilePath: optionalText(1024),
  runtimeMode: z.enum(RUNTIME_MODES as readonly [RuntimeMode, ...RuntimeMode[]]).optional(),
  internalPort: port.nullable().optional(),
};

// The rules are core's (core/service-state-rules.ts): these bound only what a body may carry.
const stateFields = {
  volumes: z
    .array(z.object({ name: text(100), mountPath: text(4096), readOnly: z.boolean().optional() }) satisfies z.ZodType<ServiceVolumeInput>)
    .max(100)
    .optional(),
  files: z
    .array(z.object({ path: text(4096), content: text(1024 * 1024), mode: text(10).optional() }) satisfies z.ZodType<ConfigFileInput>)
    .max(100)
    .optional(),
  deployStrategy: z.enum(['rolling', 'recreate'] as const satisfies readonly DeployStrategy[]).optional(),
  releaseCommand: z.array(text(65536)).max(1000).nullable().optional(),
  releaseTimeoutSeconds: z.number().nullable().optional(),
  replicas: z.number().optional(),
  placement: z.object({ nodeLabels: z.record(text(128), text(128)) }).optional(),
};

// Ranges are core's (core/limits.ts): they depend on the key and the server's maxima.
const limits = z.object({
  memoryMb: z.number().nullable().optional(),
  cpus: z.number().nullable().optional(),
  pids: z.number().nullable().optional(),
});

export const serviceCreate = z.object({
  name,
  ...serviceFields,
  limits: limits.optional(),
  databasePublicEnabled: z.boolean().optional(),
  databasePublicHostname: optionalText(253),
  postgresLogicalReplicationEnabled: z.boolean().optional(),
  nodeId: optionalText(64),
  env: z.array(envEntry).max(500).optional(),
  ...stateFields,
}) satisfies z.ZodType<NewServiceInput & { env?: { key: string; value: string }[] | undefined }>;

export const servicePatch = z.object({
  name: name.optional(),
  branch: serviceFields.branch,
  rootDir: serviceFields.rootDir,
  githubToken: serviceFields.githubToken,
  installCommand: serviceFields.installCommand,
  buildCommand: serviceFields.buildCommand,
  startCommand: serviceFields.startCommand,
  staticOutput: serviceFields.staticOutput,
  buildMethod: serviceFields.buildMethod,
  dockerfilePath: serviceFields.dockerfilePath,
  runtimeMode: serviceFields.runtimeMode,
  internalPort: serviceFields.internalPort,
  // Not patchable (the spec's PATCH fields leave it out): read only so a non-http(s) one is refused with 400.
  repoUrl: serviceFields.repoUrl,
  // Not patchable either: read only so an image ID, a bare digest or berth/ is refused with 400, never ignored.
  dockerImage: serviceFields.dockerImage,
  // Not patchable: a database's data lives on its node. Read so a different one is refused with 400, never ignored.
  nodeId: optionalText(64),
  limits: limits.optional(),
  ...stateFields,
}) satisfies z.ZodType<ServicePatch>;

export const transfer = z.object({ targetProjectId: text(100).min(1) });
export const hostnameBody = z.object({ hostname: text(1000) });
