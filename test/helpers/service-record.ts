// A service's store record with every field at its plain default, for suites that write the store directly.
import type { ServiceRecord } from '../../daemon/core/records.js';

const NOW = '2026-01-01T00:00:00.000Z';

/** A git web service `id` in project `projectId` (default `p`). */
export function serviceRecord(id: string, projectId = 'p'): ServiceRecord {
  return {
    id,
    projectId,
    name: id,
    slug: id,
    kind: 'git',
    repoFullName: 'a/b',
    repoUrl: null,
    dockerImage: null,
    branch: 'main',
    rootDir: null,
    githubToken: null,
    installCommand: null,
    buildCommand: null,
    startCommand: null,
    staticOutput: null,
    buildMethod: 'auto',
    dockerfilePath: null,
    detectedBuildMethod: null,
    runtimeMode: 'web',
    internalPort: 3000,
    hostPort: null,
    databaseEngine: null,
    databasePublicEnabled: false,
    databasePublicHostname: null,
    generatedLabel: null,
    postgresLogicalReplicationEnabled: false,
    memoryLimitMb: null,
    cpuLimit: null,
    pidsLimit: null,
    status: 'idle',
    reachable: false,
    framework: null,
    lastDeployedAt: null,
    createdAt: NOW,
    volumes: [],
    files: [],
    deployStrategy: 'rolling',
    releaseCommand: null,
    releaseTimeoutSeconds: null,
    replicas: 1,
    placement: {},
    nodeId: null,
    updatedAt: NOW,
  };
}
