// Records -> the API's exact shapes. Every field that leaves the daemon is named here, so a column
// such as a token hash or a sealed secret is never one spread away from a response.
import type { ApiKey, Deployment, Domain, EnvVar, Project, ProjectVolume, Service } from '../../shared/types.js';
import type { DeploymentRecord, DomainRecord, EnvRecord, KeyRecord, ProjectRecord, ServiceRecord, VolumeRecord } from './records.js';
import { generatedHostnameOf } from './generated-names.js';
import { effectiveLimits, type LimitPolicy } from './limits.js';
import { releaseTimeoutOf } from './service-state-rules.js';

/** Bytes a project's volume uses, when measured recently (core/ports/volume-sizes.ts); null when not known. */
export type VolumeSizeOf = (projectId: string, name: string) => number | null;

export function keyView(k: KeyRecord): ApiKey {
  return { id: k.id, name: k.name, access: k.access, projects: k.projects, createdAt: k.createdAt, lastUsedAt: k.lastUsedAt };
}

export function serviceView(s: ServiceRecord, domains: readonly DomainRecord[], limits: LimitPolicy, rootDomain: string | null, sizeOf: VolumeSizeOf = () => null): Service {
  const localUrl = s.hostPort !== null ? `http://127.0.0.1:${s.hostPort}` : '';
  const preferred = domains.find((d) => d.serviceId === s.id)?.hostname ?? null;
  return {
    id: s.id,
    projectId: s.projectId,
    name: s.name,
    slug: s.slug,
    repoFullName: s.repoFullName,
    repoUrl: s.repoUrl,
    dockerImage: s.dockerImage,
    branch: s.branch,
    rootDir: s.rootDir,
    hasGithubToken: s.githubToken !== null && s.githubToken !== '',
    installCommand: s.installCommand,
    buildCommand: s.buildCommand,
    startCommand: s.startCommand,
    staticOutput: s.staticOutput,
    buildMethod: s.buildMethod,
    dockerfilePath: s.dockerfilePath,
    detectedBuildMethod: s.detectedBuildMethod,
    runtimeMode: s.runtimeMode,
    internalPort: s.internalPort,
    hostPort: s.hostPort,
    databasePublicEnabled: s.databasePublicEnabled,
    databasePublicHostname: s.databasePublicHostname,
    postgresLogicalReplicationEnabled: s.postgresLogicalReplicationEnabled,
    status: s.status,
    reachable: s.reachable,
    localUrl,
    primaryUrl: preferred ? `https://${preferred}` : localUrl,
    preferredDomain: preferred,
    generatedHostname: generatedHostnameOf(s, rootDomain),
    framework: s.framework,
    lastDeployedAt: s.lastDeployedAt,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    limits: effectiveLimits(limits, s),
    volumes: s.volumes.map((v) => ({ name: v.name, mountPath: v.mountPath, readOnly: v.readOnly, sizeBytes: sizeOf(s.projectId, v.name) })),
    files: s.files.map((f) => ({ path: f.path, content: f.content, mode: f.mode })),
    deployStrategy: s.deployStrategy,
    releaseCommand: s.releaseCommand ? [...s.releaseCommand] : null,
    releaseTimeoutSeconds: releaseTimeoutOf(s),
    replicas: s.replicas,
    placement: { nodeLabels: { ...s.placement } },
    nodeId: s.nodeId,
  };
}

export function volumeView(v: VolumeRecord, sizeOf: VolumeSizeOf): ProjectVolume {
  return { name: v.name, serviceId: v.serviceId, mountPath: v.mountPath, sizeBytes: sizeOf(v.projectId, v.name), createdAt: v.createdAt };
}

export function projectView(p: ProjectRecord, services: Service[]): Project {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    description: p.description,
    status: services.length > 0 ? 'active' : 'idle',
    serviceCount: services.length,
    lastUpdatedAt: p.updatedAt,
    services,
  };
}

export function envView(e: EnvRecord, resolvedValue: string): EnvVar {
  return {
    id: e.id,
    key: e.key,
    hasValue: e.value !== '',
    value: e.value,
    resolvedValue,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function domainView(d: DomainRecord): Domain {
  return { id: d.id, serviceId: d.serviceId, hostname: d.hostname, status: d.status, createdAt: d.createdAt, updatedAt: d.updatedAt };
}

export function deploymentView(d: DeploymentRecord): Deployment {
  return {
    id: d.id,
    serviceId: d.serviceId,
    commitSha: d.commitSha,
    status: d.status,
    trigger: d.trigger,
    imageTag: d.imageTag,
    containerName: d.containerName,
    startedAt: d.startedAt,
    finishedAt: d.finishedAt,
    createdAt: d.createdAt,
  };
}
