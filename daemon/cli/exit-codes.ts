// The exit codes scripts rely on (DESIGN, CLI contract), and how an error maps onto them.
import { CommanderError } from 'commander';
import { ApiError } from '../../shared/client.js';
import { certificateChangedMessage, FingerprintMismatchError } from '../../shared/pinned-tls.js';
import { SseTooLargeError } from '../../shared/sse.js';

export const EXIT = {
  ok: 0,
  /** The operation failed: a deployment failed, a resource is not there, the server refused the input. */
  failed: 1,
  /** Bad command line: unknown command or option, missing argument, ambiguous service name. */
  usage: 2,
  /** The key is missing, unknown or lacks the access (401/403); or the server's certificate is not the pinned one. */
  auth: 3,
  /** No answer from the server (refused, DNS, TLS handshake, timeout). */
  unreachable: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as one line on stderr with this exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Not an error: a remote command's exit code, passed through as berth's own (`berth exec`, `run`, `shell`). */
export class CommandExit extends Error {
  constructor(readonly code: number) {
    super(`the command exited with code ${code}`);
    this.name = 'CommandExit';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e && out.length < 6; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/**
 * A 502/503/504 that did not come from Berth (no Berth error body): the reverse proxy in front of
 * an installed daemon answering for a daemon that is down or restarting.
 */
function isGatewayError(err: unknown): boolean {
  return err instanceof ApiError && [502, 503, 504].includes(err.status) && err.code === 'http_error';
}

/** True for a failure to reach the server at all (as opposed to an answer that says no). */
export function isNetworkError(err: unknown): boolean {
  if (isGatewayError(err)) return true;
  return causes(err).some((e) => {
    const code = (e as { code?: unknown })?.code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || /CERT|SELF_SIGNED/.test(code))) return true;
    return e instanceof TypeError && e.message === 'fetch failed';
  });
}

function networkDetail(err: unknown): string {
  const all = causes(err);
  const deepest = all.at(-1) as { code?: string; message?: string } | undefined;
  if (deepest && /CERT|SELF_SIGNED/.test(deepest.code ?? '')) {
    return `${deepest.message ?? deepest.code} (a self-signed server: log in with --fingerprint <the installer's BERTH_CERT_SHA256>)`;
  }
  return deepest?.code ?? deepest?.message ?? String(err);
}

/** The refusal of a certificate other than the pinned one, wherever it is in the error's causes. */
export function pinMismatchOf(err: unknown): FingerprintMismatchError | undefined {
  return causes(err).find((e): e is FingerprintMismatchError => e instanceof FingerprintMismatchError);
}

/** The message and exit code for any error thrown by a command. */
export function describeError(err: unknown, server?: string): { message: string; exitCode: ExitCode } {
  const mismatch = pinMismatchOf(err);
  if (mismatch) {
    const url = server ?? `https://${mismatch.host}`;
    return { message: certificateChangedMessage(mismatch, `re-pin with \`berth login ${url} --fingerprint ${mismatch.actual}\``), exitCode: EXIT.auth };
  }
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof CommanderError) return { message: err.message, exitCode: EXIT.usage };
  if (err instanceof SseTooLargeError) return { message: err.message, exitCode: EXIT.failed };
  if (isGatewayError(err)) return { message: `cannot reach the daemon behind ${server ?? 'the server'}: its proxy answered ${(err as ApiError).status}`, exitCode: EXIT.unreachable };
  if (err instanceof ApiError) {
    const exitCode = err.status === 401 || err.status === 403 ? EXIT.auth : EXIT.failed;
    const hint = err.status === 401 ? ' (run `berth login`, or set BERTH_TOKEN)' : '';
    return { message: `${err.message}${hint} [${err.status} ${err.code}]`, exitCode };
  }
  if (isNetworkError(err)) return { message: `cannot reach ${server ?? 'the server'}: ${networkDetail(err)}`, exitCode: EXIT.unreachable };
  return { message: err instanceof Error ? (err.stack ?? err.message) : String(err), exitCode: EXIT.failed };
}
