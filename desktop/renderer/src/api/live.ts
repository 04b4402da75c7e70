// ONE /api/events connection per tab: each event invalidates exactly the queries that show what
// changed (the event types are the wire contract in shared/events.ts). A dropped stream resumes by
// itself (EventSource sends Last-Event-ID); when the daemon refuses it (session ended, key revoked)
// the session is checked again, which shows the sign-in page.
import { useEffect, useState } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { ReceivedEvent, SettingsArea } from '../../../../shared/events.js';
import { useTransport } from './context';
import type { StreamState } from '../transport/transport';

const SETTINGS_VIEWS: Record<SettingsArea, QueryKey[]> = {
  system: [['settings']],
  // a new address comes with a new API certificate: its fingerprint is shown beside the address
  address: [['settings'], ['server-address']],
  // an upgrade started or ended: the version card (the daemon that answers may be a new one)
  upgrade: [['server-upgrade']],
  // Berth's own backup: its settings or its runs
  'server-backups': [['server-backups']],
  'deploy-limits': [['settings']],
  // the effective quotas every project page shows
  'quota-defaults': [['settings'], ['project-quotas']],
  // the backups tab offers remote storage only when it is connected
  'backup-storage': [['backup-storage'], ['backups']],
  'dns-providers': [['settings']],
  'ai-providers': [['ai-providers']],
};

/** The queries that show what `e` says changed; `null` for everything (the history was lost). */
function affectedViews(e: ReceivedEvent): QueryKey[] | null {
  switch (e.event) {
    case 'deployment':
    case 'service':
      return [['projects'], ['project'], ['service', e.data.serviceId], ['plan', e.data.serviceId]];
    case 'domain':
      return [['service', e.data.serviceId], ['project']];
    case 'domain-dns':
      return [['service', e.data.serviceId]];
    case 'backup':
      // the project's quota card counts its backups and their size
      // (a volume's backups are kept under ['backups', serviceId, 'volume', name]); the project's volumes show sizes
      return [
        ['backups', e.data.serviceId],
        ['project-quotas', e.data.projectId],
        ['volumes', e.data.projectId],
      ];
    case 'backup-settings':
    case 'backup-verification':
      return [['backups', e.data.serviceId]];
    case 'import':
      // a finished import changed the data too
      return e.data.status === 'running'
        ? [['imports', e.data.serviceId]]
        : [
            ['imports', e.data.serviceId],
            ['tables', e.data.serviceId],
            ['rows', e.data.serviceId],
          ];
    case 'project':
      // the keys page names projects from ['projects']
      return [['projects'], ['project', e.data.slug]];
    case 'service-change':
      // other services' reference suggestions name this one; the project's quota card counts its services; its volumes list says who mounts what
      return [['projects'], ['project'], ['service', e.data.serviceId], ['suggestions'], ['project-quotas', e.data.projectId], ['volumes', e.data.projectId]];
    case 'env':
      // other services' suggestions offer this variable by name
      return [['service', e.data.serviceId], ['suggestions']];
    case 'quotas':
      return [['project-quotas', e.data.projectId]];
    case 'status-page':
      return [['status-page', e.data.projectId]];
    case 'key':
      return [['keys']];
    case 'settings':
      return SETTINGS_VIEWS[e.data.area] ?? [['settings']];
    case 'notification-channel':
      return [['notifications']];
    case 'generated-name':
      return [['generated-names']];
    case 'job':
      return [
        ['jobs', e.data.serviceId],
        ['job-runs', e.data.jobId],
      ];
    case 'job-change':
      return [['jobs', e.data.serviceId]];
    case 'check':
      return [['checks', e.data.serviceId], ['check-results', e.data.checkId], ['check-uptime', e.data.checkId], ['open-incidents']];
    case 'incident':
      return [['checks', e.data.serviceId], ['check-incidents', e.data.checkId], ['open-incidents']];
    case 'exec':
      return [['execs', e.data.serviceId]];
    case 'swarm':
    case 'node':
      // the nodes view, its swarm card, and every service's instances (tasks move with nodes)
      return [['swarm'], ['nodes'], ['instances']];
    case 'instances':
      return [['instances', e.data.serviceId]];
    case 'upgrade':
      return [['server-upgrade']];
    case 'server-backup':
      return [['server-backups']];
    case 'metric-alert':
      // the charts redraw with the round that fired or cleared it
      return e.data.serviceId === null ? [['host-metrics']] : [['service-metrics', e.data.serviceId]];
    case 'audit':
      // the audit view's pages: refetched by the throttle in useLiveEvents (a burst of calls, once a second at most)
      return [];
    case 'reset':
      return null;
  }
}

/** The audit view refetches at most this often, however many calls are made. */
const AUDIT_REFETCH_MS = 1000;

export function useLiveEvents(enabled: boolean): StreamState {
  const t = useTransport();
  const qc = useQueryClient();
  const [state, setState] = useState<StreamState>('reconnecting');
  useEffect(() => {
    if (!enabled) return;
    let auditTimer: ReturnType<typeof setTimeout> | null = null;
    let auditAt = 0;
    const refetchAudit = () => {
      if (auditTimer !== null) return;
      auditTimer = setTimeout(
        () => {
          auditTimer = null;
          auditAt = Date.now();
          void qc.invalidateQueries({ queryKey: ['audit'] });
        },
        Math.max(0, auditAt + AUDIT_REFETCH_MS - Date.now()),
      );
    };
    const unsubscribe = t.subscribe('/api/events', {
      onEvent(e) {
        if (e.event === 'audit') return refetchAudit();
        // an event type this console does not know yet (a newer daemon) changes nothing here
        const views = affectedViews({ event: e.event, data: e.data ?? {} } as ReceivedEvent);
        if (views === null) void qc.invalidateQueries();
        else for (const queryKey of views ?? []) void qc.invalidateQueries({ queryKey });
      },
      onState(s) {
        setState(s);
        if (s !== 'open') void qc.invalidateQueries({ queryKey: ['session'] });
      },
    });
    return () => {
      if (auditTimer !== null) clearTimeout(auditTimer);
      unsubscribe();
    };
  }, [enabled, t, qc]);
  return state;
}
