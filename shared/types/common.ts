// Shapes every area of the API shares: timestamps, the error body, health, a proxy result.

export type Timestamp = string;

export interface ApiErrorBody {
  error: { code: string; message: string };
}

export interface Health {
  ok: true;
  version: string;
}

export interface ProxyResult {
  ok: boolean;
  detail: string;
}
