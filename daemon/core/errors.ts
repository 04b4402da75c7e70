// Typed errors thrown by core code. The HTTP layer's one error funnel turns them into
// `{error: {code, message}}` with the status each class names; core never knows about HTTP.
import type { DeploymentStatus } from '../../shared/types.js';

export abstract class BerthError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
}

export class InvalidInput extends BerthError {
  readonly status = 400;
  readonly code: string;
  constructor(message: string, code = 'invalid_input') {
    super(message);
    this.code = code;
  }
}

export class Unauthorized extends BerthError {
  readonly status = 401;
  readonly code = 'unauthorized';
}

export class Forbidden extends BerthError {
  readonly status = 403;
  readonly code: string;
  constructor(message: string, code = 'forbidden') {
    super(message);
    this.code = code;
  }
}

export class NotFound extends BerthError {
  readonly status = 404;
  readonly code = 'not_found';
}

export class Conflict extends BerthError {
  readonly status = 409;
  readonly code: string;
  constructor(message: string, code = 'conflict') {
    super(message);
    this.code = code;
  }
}

/** An outside service Berth relies on (an AI provider, ...) failed or answered nonsense. */
export class ProviderError extends BerthError {
  readonly status = 502;
  readonly code = 'provider_error';
}

/** A database engine refused a statement (syntax error, constraint violation, ...): the user's input. */
export class EngineRefused extends BerthError {
  readonly status = 400;
  readonly code = 'database_error';
}

/** A database service cannot be reached right now (not deployed, stopped, starting). */
export class DatabaseUnavailable extends BerthError {
  readonly status = 409;
  readonly code = 'database_unavailable';
}

/** A client holds too much of something shared at once (open event streams of one key, ...). */
export class TooMany extends BerthError {
  readonly status = 429;
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

/** A deployment status change that the state table (core/deployment-states.ts) does not allow. */
export class IllegalTransition extends Conflict {
  constructor(
    readonly from: DeploymentStatus,
    readonly to: DeploymentStatus,
    deploymentId?: string,
  ) {
    super(`deployment${deploymentId ? ` ${deploymentId}` : ''} is ${from}; it cannot become ${to}`, 'illegal_transition');
  }
}
