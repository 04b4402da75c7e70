import type { DatabaseEngine, Service } from '../../../../../shared/types.js';

export type ServiceKind = 'git' | 'image' | 'database' | 'worker' | 'static';

export function databaseEngine(s: Pick<Service, 'repoFullName'>): DatabaseEngine | null {
  return s.repoFullName?.startsWith('database:') ? (s.repoFullName.slice('database:'.length) as DatabaseEngine) : null;
}

export function serviceKind(s: Pick<Service, 'repoFullName' | 'repoUrl' | 'runtimeMode'>): ServiceKind {
  if (s.repoUrl === 'database' || s.repoFullName?.startsWith('database:')) return 'database';
  if (s.repoUrl === 'docker-image') return 'image';
  if (s.runtimeMode === 'worker') return 'worker';
  if (s.runtimeMode === 'static') return 'static';
  return 'git';
}

export function sourceLabel(s: Service): string {
  const kind = serviceKind(s);
  if (kind === 'database') return `${databaseEngine(s)} database`;
  if (kind === 'image') return s.dockerImage ?? 'image';
  return `${s.repoFullName ?? s.repoUrl ?? ''}${s.branch ? ` @ ${s.branch}` : ''}`;
}
