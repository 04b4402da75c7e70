// System settings: the root domain, the public IPv4 (detected at start, overridable), the ACME
// e-mail, the HTTPS mode, the dashboard hostname, and the limits on deployment work (timeouts and
// the per-project queue cap, core/deploy-limits.ts). Stored as plain strings in the settings
// table under fixed keys, which the proxy reads. Reading needs a key over all projects; changing
// them a write key over all projects. A PATCH is checked whole before anything is written.
import type { Access } from './access.js';
import type { EventSink } from './events.js';
import type { Clock } from './clock.js';
import { auditRetentionDays, auditRetentionWrite } from './audit-retention.js';
import { DEPLOY_LIMIT_NAMES, type DeployLimitSettings } from './deploy-limits.js';
import { InvalidInput } from './errors.js';
import { normalizeHostname } from './hostname.js';
import { NotifyTargets } from './notify-targets.js';
import { checkServerAddress, PUBLIC_IP_SETTING } from './server-address.js';
import type { ProxyPort } from './ports/proxy.js';
import { HTTPS_MODES } from '../../shared/constants.js';
import type { HttpsMode, ProxyResult, SystemSettings as SystemSettingsWire, SystemSettingsPatch } from '../../shared/types.js';
import type { SettingsRepo } from './ports/store.js';

// The wire's HTTPS modes and settings shapes (shared/), defined once.
export { HTTPS_MODES };
export type { SystemSettingsPatch };

/** The keys the proxy integration reads: keep them exactly. */
const SETTING_KEYS = {
  rootDomain: 'rootDomain',
  publicIp: PUBLIC_IP_SETTING,
  acmeEmail: 'acmeEmail',
  httpsMode: 'httpsMode',
  dashboardHostname: 'dashboardHostname',
} as const;

/** GET /api/system/settings: the wire's shape (its deploy limits are the ones core/deploy-limits.ts keeps). */
export type SystemSettingsView = SystemSettingsWire;

const EMAIL = /^[^\s@"<>(),;:\\]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;

export class SystemSettings {
  constructor(
    private settings: SettingsRepo,
    private clock: Clock,
    /** The first non-internal IPv4 of this host, found at start. */
    private detectedIp: string,
    /** Re-applied after a change, since routing and certificates depend on these settings. */
    private proxy: ProxyPort,
    private deployLimits: DeployLimitSettings,
    private notifyTargets: NotifyTargets,
    private events: EventSink,
  ) {}

  /** The public IPv4 to point DNS records at. */
  async publicIp(): Promise<string> {
    return (await this.settings.get(SETTING_KEYS.publicIp)) ?? this.detectedIp;
  }

  async get(access: Access): Promise<SystemSettingsView> {
    access.requireAllProjects('reading system settings');
    return this.view();
  }

  async patch(access: Access, input: SystemSettingsPatch): Promise<{ settings: SystemSettingsView; proxy: ProxyResult }> {
    access.requireWrite();
    access.requireAllProjects('changing system settings');
    // Everything is checked first: a refused patch writes nothing.
    const writes: [string, string | null][] = [];
    if (input.rootDomain !== undefined) writes.push([SETTING_KEYS.rootDomain, input.rootDomain === null ? null : hostnameField(input.rootDomain, 'rootDomain')]);
    if (input.dashboardHostname !== undefined) {
      writes.push([SETTING_KEYS.dashboardHostname, input.dashboardHostname === null ? null : hostnameField(input.dashboardHostname, 'dashboardHostname')]);
    }
    if (input.publicIp !== undefined) writes.push([SETTING_KEYS.publicIp, input.publicIp === null ? null : checkServerAddress(input.publicIp, 'publicIp')]);
    if (input.acmeEmail !== undefined) writes.push([SETTING_KEYS.acmeEmail, input.acmeEmail === null ? null : email(input.acmeEmail)]);
    if (input.httpsMode !== undefined) writes.push([SETTING_KEYS.httpsMode, input.httpsMode]);
    const limitWrites = this.deployLimits.writes(input);
    writes.push(...limitWrites);
    if (input.allowPrivateNotifyTargets !== undefined) {
      if (typeof input.allowPrivateNotifyTargets !== 'boolean') throw new InvalidInput('allowPrivateNotifyTargets must be true or false');
      writes.push(NotifyTargets.write(input.allowPrivateNotifyTargets));
    }
    if (input.auditRetentionDays !== undefined) writes.push(auditRetentionWrite(input.auditRetentionDays));
    if (writes.length === 0) {
      throw new InvalidInput(`give at least one of rootDomain, publicIp, acmeEmail, httpsMode, dashboardHostname, ${DEPLOY_LIMIT_NAMES.join(', ')}, allowPrivateNotifyTargets, auditRetentionDays`);
    }
    const now = this.clock.now();
    for (const [key, value] of writes) {
      if (value === null) await this.settings.delete(key);
      else await this.settings.set(key, value, now);
    }
    this.events.publish({ type: 'settings', allProjects: true, data: { area: 'system' } });
    // the address (and the API certificate's fingerprint) too: GET /api/system/address tells the new one
    if (input.publicIp !== undefined) this.events.publish({ type: 'settings', allProjects: true, data: { area: 'address' } });
    if (limitWrites.length > 0) this.events.publish({ type: 'settings', allProjects: true, data: { area: 'deploy-limits' } });
    const proxy = await this.proxy.apply();
    return { settings: await this.view(), proxy };
  }

  private async view(): Promise<SystemSettingsView> {
    const stored = async (key: string) => this.settings.get(key);
    const ip = await stored(SETTING_KEYS.publicIp);
    const mode = await stored(SETTING_KEYS.httpsMode);
    const { buildTimeoutSeconds, pullTimeoutSeconds, cloneTimeoutSeconds, maxQueuedPerProject } = await this.deployLimits.read();
    return {
      rootDomain: await stored(SETTING_KEYS.rootDomain),
      publicIp: ip ?? this.detectedIp,
      publicIpDetected: ip === null,
      acmeEmail: await stored(SETTING_KEYS.acmeEmail),
      httpsMode: (HTTPS_MODES as readonly string[]).includes(mode ?? '') ? (mode as HttpsMode) : null,
      dashboardHostname: await stored(SETTING_KEYS.dashboardHostname),
      buildTimeoutSeconds,
      pullTimeoutSeconds,
      cloneTimeoutSeconds,
      maxQueuedPerProject,
      allowPrivateNotifyTargets: await this.notifyTargets.allowed(),
      auditRetentionDays: await auditRetentionDays(this.settings),
    };
  }
}

function hostnameField(raw: string, field: string): string {
  try {
    return normalizeHostname(raw);
  } catch (err) {
    if (err instanceof InvalidInput) throw new InvalidInput(`${field}: ${err.message}`);
    throw err;
  }
}

function email(raw: string): string {
  const value = raw.trim();
  if (value.length > 254 || !EMAIL.test(value)) throw new InvalidInput('acmeEmail must be an e-mail address like admin@example.com');
  return value;
}
