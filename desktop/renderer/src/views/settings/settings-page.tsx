// System settings: the server's address, Berth's version and upgrades, the backup of Berth, domains and HTTPS, deployment limits, DNS providers, AI providers, notifications, remote backup storage.
// One file per section.
import type { DnsProviderStatus, SystemSettings } from '../../../../../shared/types.js';
import { useGet } from '../../api/context';
import { ErrorNote, Loading } from '../../ui/kit';
import { AddressCard } from './address';
import { AiProviders } from './ai-providers';
import { BackupStorage } from './backup-storage';
import { AuditRetention } from './audit-retention';
import { MetricAlerts } from './metric-alerts';
import { DeployLimits } from './deploy-limits';
import { DnsProviders } from './dns-providers';
import { Notifications } from './notifications';
import { General } from './server';
import { UpgradeCard } from './upgrade';
import { ServerBackupsCard } from './server-backups';
import { apiPath } from '../../../../../shared/api-routes.js';

interface SettingsAnswer {
  settings: SystemSettings;
  dnsProviders: DnsProviderStatus[];
}

/** `allProjects`: the key sees the whole server (the version card); `canWrite`: it may also upgrade. */
export default function SettingsPage({ allProjects, canWrite }: { allProjects: boolean; canWrite: boolean }) {
  const q = useGet<SettingsAnswer>(['settings'], apiPath('system.settings'));
  return (
    <div className="page narrow">
      <div className="page-head">
        <div>
          <h1>Settings</h1>
          <p className="muted">How this server is reached, and the outside services Berth talks to.</p>
        </div>
      </div>
      <ErrorNote error={q.error} />
      {q.isPending ? <Loading what="settings" /> : null}
      <AddressCard />
      {allProjects ? <UpgradeCard canWrite={canWrite} /> : null}
      {allProjects ? <ServerBackupsCard canWrite={canWrite} /> : null}
      {q.data ? <General settings={q.data.settings} /> : null}
      {q.data ? <DeployLimits settings={q.data.settings} /> : null}
      {q.data && allProjects ? <AuditRetention settings={q.data.settings} /> : null}
      {allProjects ? <MetricAlerts canWrite={canWrite} /> : null}
      {q.data ? <DnsProviders providers={q.data.dnsProviders} /> : null}
      <AiProviders />
      <Notifications settings={q.data?.settings} />
      <BackupStorage />
    </div>
  );
}
