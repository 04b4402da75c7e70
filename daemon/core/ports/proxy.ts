// The reverse proxy as core sees it: "make routing match the store" and report the outcome.
import type { ProxyResult } from '../../../shared/types.js';

export interface ProxyPort {
  apply(): Promise<ProxyResult>;
}
