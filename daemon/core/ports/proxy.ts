// The reverse proxy as core sees it: "make routing match the store" and report the outcome.
import type { ProxyResult } from '../../../shared/types.js';

export interface ProxyPort {
  apply(): Promise<ProxyResult>;
}

/** Until a proxy is configured, every change says so honestly instead of pretending it routed. */
export const unconfiguredProxy: ProxyPort = {
  apply: async () => ({
    ok: false,
    detail: 'no reverse proxy is configured on this server: the change is saved, but no traffic is routed',
  }),
};
