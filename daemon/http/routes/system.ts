// System settings (root domain, public IPv4, ACME e-mail, HTTPS mode, dashboard hostname, deployment
// timeouts and the per-project queue cap), the server's address with the fingerprint of the API
// certificate served for it, Berth's version and its upgrades, DNS provider connections, and writing a custom domain's A record
// through a connected provider.
import { isIPv4 } from 'node:net';
import { z } from 'zod';
import { requireDnsProviderId } from '../../core/dns.js';
import { HTTPS_MODES } from '../../core/system-settings.js';
import { SOURCE_MAX } from '../../core/upgrade-text.js';
import { route } from '../route-table.js';
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
  // days; core/audit-retention.ts checks the bounds (null: back to the default)
  auditRetentionDays: nullableLimit,
});

// the address itself is checked by core (core/server-address.ts), as PATCH's publicIp is
const addressBody = z.strictObject({ address: z.string().max(64, 'must be at most 64 characters') });

// the source itself is checked by core (core/upgrade-text.ts): https:// or an absolute path, one line
const upgradeBody = z.strictObject({ from: z.string().max(SOURCE_MAX, `must be at most ${SOURCE_MAX} characters`) });

const secret = z.string().trim().min(1, 'must not be empty').max(4096);
const baseUrl = z.string().max(2048).optional();
const credentialSchemas = {
  cloudflare: z.strictObject({ apiToken: secret, baseUrl }),
  namecheap: z.strictObject({
    apiUser: z.string().trim().min(1, 'must not be empty').max(200),
    apiKey: secret,
    username: z.string().trim().min(1, 'must not be empty').max(200).optional(),
    clientIp: z
      .string()
      .trim()
      .refine((v) => isIPv4(v), 'must be an IPv4 address (the one whitelisted for API access)'),
    baseUrl,
  }),
  spaceship: z.strictObject({ apiKey: secret, apiSecret: secret, baseUrl }),
} as const;

const dnsRecordBody = z.object({ providerId: z.string().min(1, 'must not be empty').max(100) });

export const systemRoutes = {
  ...route('system.settings', {
    handler: async ({ access }, { core }) => ({ settings: await core.settings.get(access), dnsProviders: await core.dns.list(access) }),
  }),
  ...route('system.settings.patch', {
    body: settingsPatch,
    handler: async ({ access, body }, { core }) => {
      const { settings, proxy } = await core.settings.patch(access, body);
      return { settings, dnsProviders: await core.dns.list(access), proxy };
    },
  }),
  ...route('system.address', {
    handler: async ({ access }, { core }) => ({ address: await core.address.get(access) }),
  }),
  ...route('system.address.set', {
    body: addressBody,
    handler: async ({ access, body }, { core }) => core.address.set(access, body),
  }),
  ...route('system.upgrade', {
    handler: async ({ access }, { core }) => ({ upgrade: await core.upgrade.get(access) }),
  }),
  ...route('system.upgrade.start', {
    body: upgradeBody,
    handler: async ({ ctx, access, body }, { core }) => {
      const upgrade = await core.upgrade.start(access, body);
      // accepted: the upgrader does the work, GET follows it
      ctx.status = 202;
      return { upgrade };
    },
  }),
  // the body's schema depends on the provider named in the path: parsed in the handler, after the key check
  ...route('dns-providers.put', {
    handler: async ({ ctx, access, params }, { core }) => {
      const id = requireDnsProviderId(params.providerId);
      const { baseUrl: url, ...credentials } = parse(credentialSchemas[id], ctx.request.body) as { baseUrl?: string } & Record<string, string | undefined>;
      return { provider: await core.dns.put(access, id, { baseUrl: url, credentials }) };
    },
  }),
  ...route('dns-providers.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.dns.delete(access, params.providerId);
      return { ok: true };
    },
  }),
  ...route('domains.dns-record', {
    body: dnsRecordBody,
    handler: async ({ access, params, body }, { core }) => {
      const { result, domain } = await core.dns.pointDomain(access, params.serviceId, params.domainId, body.providerId);
      return { ok: true, result, domain };
    },
  }),
};
