// Where a check's request goes: a domain of the check's own service through Berth's Caddy on this
// host (https with SNI, or http when Caddy serves plain HTTP), or the service's host port on
// 127.0.0.1. Never DNS, never a URL from the API.
import type { CheckRecord, ProbeOutcome } from '../core/ports/checks.js';
import type { Store } from '../core/ports/store.js';
import { readHttpsMode } from '../proxy/routing.js';
import { probe } from './probe.js';

export interface CheckTargetsDeps {
  store: Store;
  /** BERTH_PROXY_HTTP_ADDR / BERTH_PROXY_HTTPS_ADDR (`:80`, `127.0.0.1:8080`). */
  proxyHttpAddr: string;
  proxyHttpsAddr: string;
}

function hostAndPort(addr: string): { address: string; port: number } {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i).replace(/^\[|\]$/g, '');
  return { address: host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, port: Number(addr.slice(i + 1)) };
}

const failed = (error: string): ProbeOutcome => ({ status: null, responseMs: null, error, keywordFound: null, certificateDaysLeft: null });

export function checkProbe(d: CheckTargetsDeps): (check: CheckRecord) => Promise<ProbeOutcome> {
  return async (check) => {
    const base = { path: check.path, timeoutMs: check.timeoutSeconds * 1000, keyword: check.keyword, now: () => new Date() };
    if (check.target.kind === 'domain') {
      const domain = await d.store.domains.get(check.serviceId, check.target.domainId);
      if (!domain) return failed('the domain no longer belongs to the service');
      const { httpsMode } = await readHttpsMode(d.store);
      const tls = httpsMode !== 'http';
      return probe({ ...base, ...hostAndPort(tls ? d.proxyHttpsAddr : d.proxyHttpAddr), host: domain.hostname, tls: tls ? { verify: httpsMode === 'acme' } : null });
    }
    const service = await d.store.services.get(check.serviceId);
    if (!service || service.hostPort === null) return failed('the service has no host port');
    return probe({ ...base, address: '127.0.0.1', port: service.hostPort, host: `127.0.0.1:${service.hostPort}`, tls: null });
  };
}
