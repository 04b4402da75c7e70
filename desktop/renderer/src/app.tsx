// The shell: query cache, transport, session gate, navigation and routes.
import { QueryCache, QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link, Route, Switch, useLocation } from 'wouter';
import type { ApiKey } from '../../../shared/types.js';
import { TransportProvider, useGet, useTransport } from './api/context';
import { useLiveEvents } from './api/live';
import { ApiError, type Transport } from './transport/transport';
import { Loading } from './ui/kit';
import { NotifyProvider, useNotify } from './ui/notify';
import { SignIn } from './views/signin/sign-in';
import { ProjectsPage } from './views/projects/projects-page';
import { ProjectPage } from './views/project/project-page';
import { DiskBanner } from './views/server/disk-state';
import { ServicePage } from './views/service/service-page';
import { apiPath } from '../../../shared/api-routes.js';

const ServerPage = lazy(() => import('./views/server/server-page'));
const SettingsPage = lazy(() => import('./views/settings/settings-page'));
const KeysPage = lazy(() => import('./views/keys/keys-page'));
const CreateServicePage = lazy(() => import('./views/create/create-service-page'));
const ComposeImportPage = lazy(() => import('./views/compose/compose-import-page'));
const TemplatesPage = lazy(() => import('./views/compose/templates-page'));
const NodesPage = lazy(() => import('./views/nodes/nodes-page'));
const AuditPage = lazy(() => import('./views/audit/audit-page'));

function makeClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      // any 401 means the session is gone: check it again (the gate then shows sign-in)
      onError: (err, query) => {
        if (err instanceof ApiError && err.status === 401 && query.queryKey[0] !== 'session') void client.invalidateQueries({ queryKey: ['session'] });
      },
    }),
    defaultOptions: {
      queries: { staleTime: 30_000, refetchOnWindowFocus: false, retry: (n, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && n < 2 },
    },
  });
  return client;
}

export function App({ transport }: { transport: Transport }) {
  const [client] = useState(makeClient);
  return (
    <QueryClientProvider client={client}>
      <TransportProvider transport={transport}>
        <NotifyProvider>
          <Gate />
        </NotifyProvider>
      </TransportProvider>
    </QueryClientProvider>
  );
}

interface SessionAnswer {
  key: ApiKey;
  session: boolean;
}

function Gate() {
  const t = useTransport();
  const session = useGet<SessionAnswer | null>(['session'], apiPath('session.get'), {
    queryFn: () =>
      t.request<SessionAnswer>('GET', apiPath('session.get')).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }),
    staleTime: Infinity,
  });
  if (session.isPending) return <Loading what="Berth" />;
  if (!session.data) return <SignIn />;
  return <Shell keyInfo={session.data.key} />;
}

const NAV = [
  { href: '/', label: 'Projects' },
  { href: '/server', label: 'Server' },
  { href: '/nodes', label: 'Nodes' },
  { href: '/settings', label: 'Settings' },
  { href: '/keys', label: 'Keys' },
  { href: '/audit', label: 'Audit log' },
];

function Shell({ keyInfo }: { keyInfo: ApiKey }) {
  const live = useLiveEvents(true);
  const [location] = useLocation();
  const t = useTransport();
  const qc = useQueryClient();
  const notify = useNotify();
  const admin = keyInfo.access === 'write' && keyInfo.projects === 'all';
  // the swarm and its nodes, and the audit log, are the whole server's: a key over some projects does not see them
  const allProjects = keyInfo.projects === 'all';
  const shown = (href: string) => (admin || href !== '/keys') && (allProjects || (href !== '/nodes' && href !== '/audit'));
  const active = (href: string) => (href === '/' ? location === '/' || location.startsWith('/projects') || location.startsWith('/services') : location.startsWith(href));
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/" className="brand" aria-label="Berth home">
          <span className="brand-mark" aria-hidden="true" />
          Berth
        </Link>
        <nav aria-label="Main">
          {NAV.filter((n) => shown(n.href)).map((n) => (
            <Link key={n.href} href={n.href} className={active(n.href) ? 'nav-link active' : 'nav-link'} aria-current={active(n.href) ? 'page' : undefined}>
              {n.label}
            </Link>
          ))}
        </nav>
        <div className="topbar-end">
          <span className={`live live-${live}`} title={live === 'open' ? 'Live updates connected' : 'Live updates reconnecting'}>
            <span className="dot" aria-hidden="true" />
            {live === 'open' ? 'Live' : 'Reconnecting'}
          </span>
          <span className="key-chip" title={`Signed in with key ${keyInfo.name}`}>
            {keyInfo.name} · {keyInfo.access}
          </span>
          {t.signOut ? (
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() => {
                // signed out here either way; a session the daemon did not end is said, not lost
                t.signOut!()
                  .catch((err: unknown) => notify.error(`The server did not end the session: ${err instanceof Error ? err.message : String(err)}`))
                  .finally(() => {
                    qc.clear();
                    qc.setQueryData(['session'], null);
                  });
              }}
            >
              Sign out
            </button>
          ) : null}
        </div>
      </header>
      <main id="main" className="main">
        <DiskBanner />
        <Suspense fallback={<Loading what="view" />}>
          <Switch>
            <Route path="/">{() => <ProjectsPage canCreate={admin} />}</Route>
            <Route path="/projects/:slug/new">{(p) => <CreateServicePage slug={p.slug} />}</Route>
            <Route path="/projects/:slug/compose">{(p) => <ComposeImportPage slug={p.slug} />}</Route>
            <Route path="/projects/:slug/templates">{(p) => <TemplatesPage slug={p.slug} />}</Route>
            <Route path="/projects/:slug">{(p) => <ProjectPage slug={p.slug} canEditQuotas={admin} />}</Route>
            <Route path="/services/:id/:tab?">{(p) => <ServicePage id={p.id} tab={p.tab} />}</Route>
            <Route path="/server">{() => <ServerPage allProjects={allProjects} />}</Route>
            <Route path="/nodes">{() => <NodesPage canWrite={admin} />}</Route>
            <Route path="/settings">{() => <SettingsPage allProjects={allProjects} canWrite={admin} />}</Route>
            <Route path="/keys">{() => <KeysPage />}</Route>
            <Route path="/audit">{() => <AuditPage />}</Route>
            <Route>
              <div className="page">
                <h1>Not found</h1>
                <p>
                  Nothing lives at this address. <Link href="/">Back to projects</Link>
                </p>
              </div>
            </Route>
          </Switch>
        </Suspense>
      </main>
    </div>
  );
}
