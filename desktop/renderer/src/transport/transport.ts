// The one way views reach the API. Two implementations: same-origin fetch with the session cookie
// (web, ./web.ts) and the desktop app's preload bridge (./bridge.ts). Views get it from context
// (api/context.tsx) and never import an implementation.

import type { HttpMethod, IpcStreamEvent, IpcStreamState, TerminalHandle, TerminalMessage } from '../../../ipc/contract';

// the same shapes the desktop IPC contract carries (desktop/ipc/contract.ts), so both transports agree
export type Method = HttpMethod;
type StreamEvent = IpcStreamEvent;
export type StreamState = IpcStreamState;

export interface StreamListener {
  onEvent(e: StreamEvent): void;
  onState?(state: StreamState): void;
}

/** What a terminal connection reports: opened, output (text or bytes), closed with the daemon's code and reason. */
export type TerminalEvent = TerminalMessage;

/** The window's end of a terminal: raw input, a resize (sent as the JSON resize frame), close. */
export type TerminalConnection = TerminalHandle;

export interface Transport {
  readonly kind: 'web' | 'desktop';
  /** Resolves with the JSON body of a 2xx answer; rejects with ApiError otherwise. */
  request<T>(method: Method, path: string, body?: unknown): Promise<T>;
  /** A Server-Sent Events stream (the daemon's event stream, a log stream); returns the unsubscribe. */
  subscribe(path: string, listener: StreamListener): () => void;
  /** A POST answered with Server-Sent Events (a one-off command's output); returns the stop. */
  postStream(path: string, body: unknown, listener: StreamListener): () => void;
  /** The service's terminal (the `terminal` route's WebSocket): raw frames both ways. */
  openTerminal(serviceId: string, onEvent: (e: TerminalEvent) => void): TerminalConnection;
  /** Downloads a non-JSON answer (a backup file, a CA certificate) to the user's disk. */
  download(path: string, filename: string): Promise<void>;
  /** Web only: exchanging a key for a session cookie and ending it. The desktop app holds keys itself. */
  signIn?(key: string): Promise<void>;
  signOut?(): Promise<void>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The error body `{error: {code, message}}` as an ApiError (or a generic one). */
export function toApiError(status: number, body: unknown): ApiError {
  const err = (body as { error?: { code?: string; message?: string } } | null)?.error;
  return new ApiError(status, err?.code ?? 'http_' + status, err?.message ?? `request failed with HTTP ${status}`);
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
