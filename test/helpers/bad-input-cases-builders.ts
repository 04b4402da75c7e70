// Builders shared by the bad-input cases (test/helpers/bad-input-cases.ts and
// bad-input-cases-service-create.ts) and their fixtures: long strings, valid service bodies to
// break one field of, and env keys the daemon must refuse.

export const long = (n: number, ch = 'x') => ch.repeat(n);

/** A valid git service body with `extra` merged in (set a field to undefined to drop it). */
export const git = (extra: Record<string, unknown> = {}) => ({ name: 'new-svc', repoFullName: 'acme/new', branch: 'main', ...extra });
export const postgres = (extra: Record<string, unknown> = {}) => ({
  name: 'new-db',
  repoFullName: 'database:postgres',
  repoUrl: 'database',
  branch: 'main',
  internalPort: 5432,
  databasePublicEnabled: false,
  postgresLogicalReplicationEnabled: false,
  env: [],
  ...extra,
});

export const INVALID_ENV_KEYS = ['lower', '1ABC', 'A-B', '', 'A B', 'É'];
