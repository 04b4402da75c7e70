// One service: header with state and actions, then tabs for deployments, instances, metrics, logs, variables,
// domains, data and backups (databases), volumes and config files (the others) and settings.
import { lazy, Suspense } from 'react';
import { Link, useLocation } from 'wouter';
import type { Deployment, Project, ServiceOverview } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ErrorNote, Loading, Status, Tabs } from '../../ui/kit';
import { Deployments } from './deployments';
import { DomainsTab } from './domains';
import { EnvEditor } from './env-editor';
import { RuntimeLogs } from './runtime-logs';
import { serviceKind, sourceLabel } from './service-kind';
import { SettingsTab } from './settings-tab';
import { apiPath } from '../../../../../shared/api-routes.js';
import { nodeName, useSwarmNodes } from '../nodes/use-swarm-nodes';

const DataTab = lazy(() => import('../database/data-tab'));
const BackupsTab = lazy(() => import('../database/backups-tab'));
const VolumesTab = lazy(() => import('./volumes-tab'));
const FilesTab = lazy(() => import('./files-tab'));
const JobsTab = lazy(() => import('./jobs-tab'));
const UptimeTab = lazy(() => import('./uptime-tab'));
const ExecTab = lazy(() => import('./exec-tab'));
const TerminalTab = lazy(() => import('./terminal-tab'));
const InstancesTab = lazy(() => import('./instances-tab'));
const MetricsTab = lazy(() => import('./metrics-tab'));

type Tab = 'deployments' | 'instances' | 'metrics' | 'logs' | 'variables' | 'domains' | 'data' | 'backups' | 'volumes' | 'files' | 'jobs' | 'uptime' | 'commands' | 'terminal' | 'settings';

export function ServicePage({ id, tab }: { id: string; tab?: string | undefined }) {
  const q = useGet<ServiceOverview>(['service', id], apiPath('services.overview', { serviceId: id }));
  const projects = useGet<{ projects: Project[] }>(['projects'], apiPath('projects.list'));
  const [, navigate] = useLocation();
  const deploy = useAction<Record<string, never>, { deployment: Deployment }>('POST', apiPath('deployments.create', { serviceId: id }), {
    invalidate: [['service', id]],
    success: 'Deployment queued',
    onSuccess: (r) => navigate(`/services/${id}/deployments?d=${r.deployment.id}`),
  });
  if (q.isPending) return <Loading what="service" />;
  if (!q.data) return <ErrorNote error={q.error} />;
  const { service: s, deployments } = q.data;
  const kind = serviceKind(s);
  const project = projects.data?.projects.find((p) => p.id === s.projectId);
  const tabs: { id: Tab; label: string }[] = [
    { id: 'deployments', label: 'Deployments' },
    { id: 'instances', label: 'Instances' },
    { id: 'metrics', label: 'Metrics' },
    { id: 'logs', label: 'Logs' },
    { id: 'variables', label: 'Variables' },
    ...(kind !== 'worker' && kind !== 'database' ? [{ id: 'domains' as Tab, label: 'Domains' }] : []),
    ...(kind === 'database'
      ? [
          { id: 'data' as Tab, label: 'Data' },
          { id: 'backups' as Tab, label: 'Backups' },
        ]
      : [
          { id: 'volumes' as Tab, label: 'Volumes' },
          { id: 'files' as Tab, label: 'Files' },
        ]),
    ...(kind !== 'database' ? [{ id: 'jobs' as Tab, label: 'Jobs' }] : []),
    ...(kind !== 'worker' && kind !== 'database' ? [{ id: 'uptime' as Tab, label: 'Uptime' }] : []),
    { id: 'commands', label: 'Commands' },
    { id: 'terminal', label: 'Terminal' },
    { id: 'settings', label: 'Settings' },
  ];
  const current = (tabs.find((t) => t.id === tab)?.id ?? 'deployments') as Tab;
  const latest = deployments[0];
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href="/">Projects</Link> <span aria-hidden="true">/</span> {project ? <Link href={`/projects/${project.slug}`}>{project.name}</Link> : <span>Project</span>}{' '}
        <span aria-hidden="true">/</span> <span aria-current="page">{s.name}</span>
      </nav>
      <div className="page-head">
        <div>
          <h1 className="row">
            {s.name} <Status value={s.status} />
          </h1>
          <p className="muted mono small">{sourceLabel(s)}</p>
          <div className="row small facts">
            {s.status === 'active' ? <span className={s.reachable ? 'tone-ok-text' : 'tone-bad-text'}>{s.reachable ? 'Reachable' : 'Not reachable'}</span> : null}
            {s.primaryUrl && kind !== 'database' && kind !== 'worker' ? (
              <a href={s.primaryUrl} target="_blank" rel="noreferrer noopener">
                {s.primaryUrl}
              </a>
            ) : null}
            {s.localUrl && s.localUrl !== s.primaryUrl && kind !== 'worker' ? <span className="mono">{s.localUrl.replace(/^https?:\/\//, '')}</span> : null}
            {s.framework ? <span>{s.framework}</span> : null}
            {s.nodeId ? <NodeFact nodeId={s.nodeId} /> : null}
          </div>
        </div>
        <div className="row">
          <Button variant="primary" busy={deploy.isPending} onClick={() => deploy.mutate({})}>
            {latest ? 'Redeploy' : 'Deploy'}
          </Button>
        </div>
      </div>
      <Tabs tabs={tabs} value={current} onChange={(t) => navigate(`/services/${id}/${t}`)} label="Service sections" />
      <section role="tabpanel" aria-labelledby={`tab-${current}`} className="tabpanel">
        <Suspense fallback={<Loading what="section" />}>
          {current === 'deployments' ? <Deployments overview={q.data} /> : null}
          {current === 'instances' ? <InstancesTab service={s} /> : null}
          {current === 'metrics' ? <MetricsTab service={s} /> : null}
          {current === 'logs' ? <RuntimeLogs service={s} /> : null}
          {current === 'variables' ? <EnvEditor overview={q.data} /> : null}
          {current === 'domains' ? <DomainsTab overview={q.data} /> : null}
          {current === 'data' ? <DataTab service={s} /> : null}
          {current === 'backups' ? <BackupsTab service={s} /> : null}
          {current === 'volumes' ? <VolumesTab service={s} /> : null}
          {current === 'files' ? <FilesTab service={s} /> : null}
          {current === 'jobs' ? <JobsTab service={s} /> : null}
          {current === 'uptime' ? <UptimeTab service={s} domains={q.data.domains} /> : null}
          {current === 'commands' ? <ExecTab service={s} /> : null}
          {current === 'terminal' ? <TerminalTab service={s} /> : null}
          {current === 'settings' ? <SettingsTab service={s} projects={projects.data?.projects ?? []} /> : null}
        </Suspense>
      </section>
    </div>
  );
}

/** Where a database placed on a worker runs; the hostname from the nodes list (live), else the id's start. */
function NodeFact({ nodeId }: { nodeId: string }) {
  const { nodes } = useSwarmNodes();
  return (
    <span title={nodeId}>
      Runs on node <span className="mono">{nodeName(nodes, nodeId)}</span>
    </span>
  );
}
