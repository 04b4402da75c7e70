/**
 * A deployment step failed for a reason the user can act on. Its message goes into the
 * deployment's log as the last line, so it must never hold a secret.
 */
export class BuildError extends Error {
  override readonly name = 'BuildError';
}
