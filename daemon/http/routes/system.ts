// System settings (root domain, public IPv4, ACME e-mail, HTTPS mode, dashboard hostname), DNS
// provider connections, and writing a custom domain's A record through a connected provider.
import type Router from '@koa/router';
import { isIPv4 } from 'node:net';
import { z } from 'zod';
import type { DnsProviders } from '../../core/dns.js';
import { requireDnsProviderId } from '../../core/dns.js';
import { HTTPS_MODES, type SystemSettings } from '../../core/system-settings.js';
import { accessOf } from '../auth.js';
import { parse } from '../validate.js';

export interface SystemRouteDeps {
  settings: SystemSettings;
  dns: DnsProviders;
}

const nullableText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullable().optional();

// Strict: a misspelt field (rootdomain) must not pass silently.
const settingsPatch = z.strictObject({
  rootDomain: nullableText(253),
  publicIp: nullableText(64),
  acmeEmail: nullableText(254),
  httpsMode: z.enum(HTTPS_MODES).optional(),
  dashboardHostname: nullableText(253),
});

const secret = z.string().trim().min(1, 'must not be empty').max(4096);
const baseUrl = z.string().max(2048).optional();
const credentialSchemas = {
  cloudflare: z.strictObject({ apiToken: secret, baseUrl }),
  namecheap: z.strictObject({
    apiUser: z.string().trim().min(1, 'must not be empty').max(200),
    apiKey: secret,
    username: z.string().trim().min(1, 'must not be empty').max(200).optional(),
    clientIp: z.string().trim().refine((v) => isIPv4(v), 'must be an IPv4 address (the one whitelisted for API access)'),
    baseUrl,
  }),
  spaceship: z.strictObject({ apiKey: secret, apiSecret: secret, baseUrl }),
} as const;

const dnsRecordBody = z.object({ providerId: z.string().min(1, 'must not be empty').max(100) });

export function systemRoutes(deps: SystemRouteDeps): (router: Router) => void {
  return (router) => {
    router.get('/api/system/settings', async (ctx) => {
      const access = accessOf(ctx);
      ctx.body = { settings: await deps.settings.get(access), dnsProviders: await deps.dns.list(access) };
    });

    router.patch('/api/system/settings', async (ctx) => {
      const access = accessOf(ctx);
      access.requireWrite();
      access.requireAllProjects('changing system settings');
      const input = parse(settingsPatch, ctx.request.body);
      const { settings, proxy } = await deps.settings.patch(access, input);
      ctx.body = { settings, dnsProviders: await deps.dns.list(access), proxy };
    });

    router.put('/api/system/dns-providers/:providerId', async (ctx) => {
      const access = accessOf(ctx);
      access.requireWrite();
      access.requireAllProjects('managing DNS providers');
      const id = requireDnsProviderId(ctx.params.providerId!);
      const { baseUrl: url, ...credentials } = parse(credentialSchemas[id], ctx.request.body) as { baseUrl?: string } & Record<string, string | undefined>;
      ctx.body = { provider: await deps.dns.put(access, id, { baseUrl: url, credentials }) };
    });

    router.delete('/api/system/dns-providers/:providerId', async (ctx) => {
      await deps.dns.delete(accessOf(ctx), ctx.params.providerId!);
      ctx.body = { ok: true };
    });

    router.post('/api/services/:serviceId/domains/:domainId/dns-records', async (ctx) => {
      const access = accessOf(ctx);
      access.requireWrite();
      const { providerId } = parse(dnsRecordBody, ctx.request.body);
      const { result, domain } = await deps.dns.pointDomain(access, ctx.params.serviceId!, ctx.params.domainId!, providerId);
      ctx.body = { ok: true, result, domain };
    });
  };
}
