// Server settings: the root domain, the HTTPS mode with its ACME e-mail, and the
// dashboard hostname; saving shows the reverse proxy's answer. The address has its own card
// (address.tsx): changing it re-issues the API certificate, which a form save must not do in passing.
import { useState } from 'react';
import type { HttpsMode, ProxyResult, SystemSettings } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { Button, ErrorNote, Field } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

export function General({ settings }: { settings: SystemSettings }) {
  const [f, setF] = useState({
    rootDomain: settings.rootDomain ?? '',
    httpsMode: settings.httpsMode ?? '',
    acmeEmail: settings.acmeEmail ?? '',
    dashboardHostname: settings.dashboardHostname ?? '',
  });
  const [proxy, setProxy] = useState<ProxyResult | null>(null);
  const save = useAction<Record<string, unknown>, { proxy?: ProxyResult }>('PATCH', apiPath('system.settings.patch'), {
    invalidate: [['settings']],
    success: 'Settings saved',
    onSuccess: (r) => setProxy(r.proxy ?? null),
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  return (
    <form
      className="card stack"
      aria-label="Server settings"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          rootDomain: f.rootDomain.trim() || null,
          acmeEmail: f.acmeEmail.trim() || null,
          dashboardHostname: f.dashboardHostname.trim() || null,
          ...(f.httpsMode ? { httpsMode: f.httpsMode as HttpsMode } : {}),
        });
      }}
    >
      <h2 className="h3">Server</h2>
      <div className="cols">
        <Field label="Root domain" hint="Services and databases get names under it">
          {(id) => <input id={id} value={f.rootDomain} onChange={set('rootDomain')} placeholder="example.com" />}
        </Field>
      </div>
      <div className="cols">
        <Field label="HTTPS">
          {(id) => (
            <select id={id} value={f.httpsMode} onChange={set('httpsMode')}>
              <option value="" disabled>
                Choose…
              </option>
              <option value="acme">Public certificates (Let's Encrypt)</option>
              <option value="internal">Internal CA (self-signed)</option>
              <option value="http">HTTP only</option>
            </select>
          )}
        </Field>
        <Field label="ACME email" hint="For certificate expiry notices">
          {(id) => <input id={id} type="email" value={f.acmeEmail} onChange={set('acmeEmail')} />}
        </Field>
      </div>
      <Field label="Dashboard hostname" hint="Serve this console at a hostname through the reverse proxy">
        {(id) => <input id={id} value={f.dashboardHostname} onChange={set('dashboardHostname')} placeholder="berth.example.com" />}
      </Field>
      <ErrorNote error={save.error} />
      {proxy ? <div className={proxy.ok ? 'note note-ok' : 'note note-warn'}>Reverse proxy: {proxy.detail}</div> : null}
      <div className="row end">
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save
        </Button>
      </div>
    </form>
  );
}
