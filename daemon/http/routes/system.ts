// System settings (root domain, public IPv4, ACME e-mail, HTTPS mode, dashboard hostname, deployment
// timeouts and the per-project queue cap), DNS provider connections, and writing a custom domain's
// A record through a connected provider.
import type Router from '@koa/router';
import { isIPv4 } from 'node:net';
import { z } from 'zod';
import { requireDnsProviderId } from '../../core/dns.js';
import { HTTPS_MODES } from '../../core/system-settings.js';
import { accessOf } from '../auth.js';
import type { AppServices } from '../route-module.js';
import { parse } from '../validate.js';

const nullableText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullable().optional();
// whole numbers; core/deploy-limits.ts checks the bounds (null: back to the default)
const nullableLimit = z.number().int('must be a whole number').nullable().optional();

// Strict: a misspelt field (rootdomain) must not pass silently.
const settingsPatch = z.strictObject({
  rootDomain: nullableText(253),
  publicIp: nullableText(64),
  acmeEmail: nullableText(254),
  httpsMode: z.enum(HTTPS_MODES).optional(),
  dashboardHostname: nullableText(253),
  buildTimeoutSeconds: nullableLimit,
  pullTimeoutSeconds: nullableLimit,
  cloneTimeoutSeconds: nullableLimit,
  maxQueuedPerProject: nullableLimit,
  allowPrivateNotifyTargets: z.boolean().optional(),
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

export function systemRoutes(router: Router, { core }: AppServices): void {
  router.get('/api/system/settings', async (ctx) => {
    const access = accessOf(ctx);
    ctx.body = { settings: await core.settings.get(access), dnsProviders: await core.dns.list(access) };
  });

  router.patch('/api/system/settings', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('changing system settings');
    const input = parse(settingsPatch, ctx.request.body);
    const { settings, proxy } = await core.settings.patch(access, input);
    ctx.body = { settings, dnsProviders: await core.dns.list(access), proxy };
  });

  router.put('/api/system/dns-providers/:providerId', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    access.requireAllProjects('managing DNS providers');
    const id = requireDnsProviderId(ctx.params.providerId!);
    const { baseUrl: url, ...credentials } = parse(credentialSchemas[id], ctx.request.body) as { baseUrl?: string } & Record<string, string | undefined>;
    ctx.body = { provider: await core.dns.put(access, id, { baseUrl: url, credentials }) };
  });

  router.delete('/api/system/dns-providers/:providerId', async (ctx) => {
    await core.dns.delete(accessOf(ctx), ctx.params.providerId!);
    ctx.body = { ok: true };
  });

  router.post('/api/services/:serviceId/domains/:domainId/dns-records', async (ctx) => {
    const access = accessOf(ctx);
    access.requireWrite();
    const { providerId } = parse(dnsRecordBody, ctx.request.body);
    const { result, domain } = await core.dns.pointDomain(access, ctx.params.serviceId!, ctx.params.domainId!, providerId);
    ctx.body = { ok: true, result, domain };
  });
}
