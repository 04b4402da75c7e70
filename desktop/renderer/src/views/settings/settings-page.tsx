// System settings: domains and HTTPS, deployment limits, DNS providers, AI providers, notifications, remote backup storage.
import { useEffect, useState } from 'react';
import type { AiProvider, AiProviderKind, BackupStorageStatus, DnsProviderId, DnsProviderStatus, HttpsMode, ProxyResult, SystemSettings } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field, Loading, Modal } from '../../ui/kit';
import { DeployLimits } from './deploy-limits';
import { Notifications } from './notifications';
import { apiPath } from '../../../../../shared/api-routes.js';

interface SettingsAnswer {
  settings: SystemSettings;
  dnsProviders: DnsProviderStatus[];
}

export default function SettingsPage() {
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
      {q.data ? <General settings={q.data.settings} /> : null}
      {q.data ? <DeployLimits settings={q.data.settings} /> : null}
      {q.data ? <DnsProviders providers={q.data.dnsProviders} /> : null}
      <AiProviders />
      <Notifications settings={q.data?.settings} />
      <BackupStorage />
    </div>
  );
}

function General({ settings }: { settings: SystemSettings }) {
  const [f, setF] = useState({ rootDomain: settings.rootDomain ?? '', publicIp: settings.publicIpDetected ? '' : settings.publicIp, httpsMode: settings.httpsMode ?? '', acmeEmail: settings.acmeEmail ?? '', dashboardHostname: settings.dashboardHostname ?? '' });
  const [proxy, setProxy] = useState<ProxyResult | null>(null);
  const save = useAction<Record<string, unknown>, { proxy?: ProxyResult }>('PATCH', apiPath('system.settings.patch'), { invalidate: [['settings']], success: 'Settings saved', onSuccess: (r) => setProxy(r.proxy ?? null) });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  return (
    <form
      className="card stack"
      aria-label="Server settings"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ rootDomain: f.rootDomain.trim() || null, publicIp: f.publicIp.trim() || null, acmeEmail: f.acmeEmail.trim() || null, dashboardHostname: f.dashboardHostname.trim() || null, ...(f.httpsMode ? { httpsMode: f.httpsMode as HttpsMode } : {}) });
      }}
    >
      <h2 className="h3">Server</h2>
      <div className="cols">
        <Field label="Root domain" hint="Services and databases get names under it">
          {(id) => <input id={id} value={f.rootDomain} onChange={set('rootDomain')} placeholder="example.com" />}
        </Field>
        <Field label="Public IP" hint={settings.publicIpDetected ? `Detected: ${settings.publicIp}. Leave empty to keep it.` : 'Set by hand; empty returns to the detected address'}>
          {(id) => <input id={id} value={f.publicIp} onChange={set('publicIp')} placeholder={settings.publicIp} />}
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

const DNS_FIELDS: Record<DnsProviderId, { key: string; label: string; secret?: boolean; optional?: boolean }[]> = {
  cloudflare: [{ key: 'apiToken', label: 'API token', secret: true }],
  namecheap: [
    { key: 'apiUser', label: 'API user' },
    { key: 'apiKey', label: 'API key', secret: true },
    { key: 'username', label: 'Username', optional: true },
    { key: 'clientIp', label: 'Whitelisted client IP' },
  ],
  spaceship: [
    { key: 'apiKey', label: 'API key', secret: true },
    { key: 'apiSecret', label: 'API secret', secret: true },
  ],
};

function DnsProviders({ providers }: { providers: DnsProviderStatus[] }) {
  const [editing, setEditing] = useState<DnsProviderStatus | null>(null);
  return (
    <section className="card stack" aria-label="DNS providers">
      <h2 className="h3">DNS providers</h2>
      <p className="muted small">Connected providers create A records for your domains from the service page.</p>
      <ul className="list">
        {providers.map((p) => (
          <li key={p.id} className="list-row row between">
            <span>
              <span className="strong">{p.name}</span> {p.connected ? <span className="badge tone-ok">connected</span> : <span className="badge tone-muted">not connected</span>}
            </span>
            <span className="row">
              <Button onClick={() => setEditing(p)}>{p.connected ? 'Replace credentials' : 'Connect'}</Button>
              {p.connected ? <DisconnectDns provider={p} /> : null}
            </span>
          </li>
        ))}
      </ul>
      {editing ? <DnsForm provider={editing} onClose={() => setEditing(null)} /> : null}
    </section>
  );
}

function DisconnectDns({ provider }: { provider: DnsProviderStatus }) {
  const del = useAction('DELETE', apiPath('dns-providers.delete', { providerId: provider.id }), { invalidate: [['settings']], success: `${provider.name} disconnected` });
  return <ConfirmButton label="Disconnect" title={`Disconnect ${provider.name}?`} message="Its credentials are deleted from this server." confirmLabel="Disconnect" busy={del.isPending} onConfirm={() => del.mutate(undefined)} />;
}

function DnsForm({ provider, onClose }: { provider: DnsProviderStatus; onClose: () => void }) {
  const fields = DNS_FIELDS[provider.id];
  const [v, setV] = useState<Record<string, string>>({});
  const save = useAction<Record<string, string>>('PUT', apiPath('dns-providers.put', { providerId: provider.id }), { invalidate: [['settings']], success: `${provider.name} connected`, onSuccess: onClose });
  return (
    <Modal open title={`Connect ${provider.name}`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(Object.fromEntries(Object.entries(v).filter(([, x]) => x.trim() !== '')));
        }}
      >
        {fields.map((f) => (
          <Field key={f.key} label={f.label} hint={f.optional ? 'Optional' : undefined}>
            {(id) => <input id={id} type={f.secret ? 'password' : 'text'} autoComplete="off" value={v[f.key] ?? ''} onChange={(e) => setV({ ...v, [f.key]: e.target.value })} required={!f.optional} />}
          </Field>
        ))}
        <p className="hint">Berth checks the credentials with the provider before saving; they are stored sealed and never shown again.</p>
        <ErrorNote error={save.error} />
        <div className="row end">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={save.isPending}>
            Connect
          </Button>
        </div>
      </form>
    </Modal>
  );
}

function AiProviders() {
  const q = useGet<{ providers: AiProvider[] }>(['ai-providers'], apiPath('ai-providers.list'));
  const [adding, setAdding] = useState(false);
  return (
    <section className="card stack" aria-label="AI providers">
      <div className="row between">
        <h2 className="h3">AI providers</h2>
        <Button onClick={() => setAdding(true)}>Add provider</Button>
      </div>
      <p className="muted small">They explain failed deployments. The built-in rules work offline.</p>
      <ErrorNote error={q.error} />
      <ul className="list">
        {(q.data?.providers ?? []).map((p) => (
          <li key={p.id} className="list-row row between">
            <span>
              <span className="strong">{p.name}</span> <span className="muted small">{p.kind === 'local' ? 'built in, offline' : `${p.kind}${p.defaultModel ? ` · ${p.defaultModel}` : ''}${p.baseUrl ? ` · ${p.baseUrl}` : ''}`}</span>
            </span>
            {p.kind !== 'local' ? <DeleteAi provider={p} /> : null}
          </li>
        ))}
      </ul>
      {adding ? <AiForm onClose={() => setAdding(false)} /> : null}
    </section>
  );
}

function DeleteAi({ provider }: { provider: AiProvider }) {
  const del = useAction('DELETE', apiPath('ai-providers.delete', { providerId: provider.id }), { invalidate: [['ai-providers']], success: `${provider.name} removed` });
  return <ConfirmButton label="Remove" title={`Remove ${provider.name}?`} message="Its API key is deleted from this server." confirmLabel="Remove" busy={del.isPending} onConfirm={() => del.mutate(undefined)} />;
}

function AiForm({ onClose }: { onClose: () => void }) {
  const [f, setF] = useState({ id: '', kind: 'openai' as AiProviderKind, name: '', apiKey: '', baseUrl: '', defaultModel: '' });
  const save = useAction<Record<string, unknown>>('PUT', () => apiPath('ai-providers.put', { providerId: f.id || f.kind }), { invalidate: [['ai-providers']], success: 'Provider saved', onSuccess: onClose });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  return (
    <Modal open title="Add an AI provider" onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ kind: f.kind, ...(f.name ? { name: f.name } : {}), apiKey: f.apiKey, ...(f.baseUrl ? { baseUrl: f.baseUrl } : {}), ...(f.defaultModel ? { defaultModel: f.defaultModel } : {}) });
        }}
      >
        <div className="cols">
          <Field label="Kind">
            {(id) => (
              <select id={id} value={f.kind} onChange={set('kind')}>
                <option value="openai">OpenAI-compatible</option>
                <option value="anthropic">Anthropic</option>
                <option value="gemini">Gemini</option>
              </select>
            )}
          </Field>
          <Field label="Id" hint="Letters, digits and dashes; defaults to the kind">
            {(id) => <input id={id} value={f.id} onChange={set('id')} placeholder={f.kind} />}
          </Field>
        </div>
        <Field label="Name">{(id) => <input id={id} value={f.name} onChange={set('name')} />}</Field>
        <Field label="API key">{(id) => <input id={id} type="password" autoComplete="off" value={f.apiKey} onChange={set('apiKey')} required />}</Field>
        <div className="cols">
          <Field label="Base URL" hint="Optional">
            {(id) => <input id={id} value={f.baseUrl} onChange={set('baseUrl')} />}
          </Field>
          <Field label="Default model">{(id) => <input id={id} value={f.defaultModel} onChange={set('defaultModel')} />}</Field>
        </div>
        <ErrorNote error={save.error} />
        <div className="row end">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save provider
          </Button>
        </div>
      </form>
    </Modal>
  );
}

function BackupStorage() {
  const q = useGet<BackupStorageStatus>(['backup-storage'], apiPath('backup-storage.get'));
  const [f, setF] = useState({ endpoint: '', region: 'us-east-1', bucket: '', prefix: '', accessKeyId: '', secretAccessKey: '', forcePathStyle: true });
  useEffect(() => {
    const s = q.data?.storage;
    if (s) setF((x) => ({ ...x, endpoint: s.endpoint, region: s.region, bucket: s.bucket, prefix: s.prefix, accessKeyId: s.accessKeyId, forcePathStyle: s.forcePathStyle }));
  }, [q.data]);
  const save = useAction<Record<string, unknown>, BackupStorageStatus>('PUT', apiPath('backup-storage.put'), { invalidate: [['backup-storage']], success: (r) => (r.connected ? 'Remote storage connected' : `Saved, but not reachable: ${r.detail}`) });
  const del = useAction('DELETE', apiPath('backup-storage.delete'), { invalidate: [['backup-storage']], success: 'Remote storage removed' });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  return (
    <form
      className="card stack"
      aria-label="Backup storage"
      onSubmit={(e) => {
        e.preventDefault();
        const { secretAccessKey, ...rest } = f;
        save.mutate({ ...rest, ...(secretAccessKey ? { secretAccessKey } : {}) });
      }}
    >
      <div className="row between">
        <h2 className="h3">Backup storage (S3-compatible)</h2>
        {q.data ? <span className={`badge ${q.data.connected ? 'tone-ok' : 'tone-muted'}`}>{q.data.storage ? (q.data.connected ? 'connected' : 'not reachable') : 'not configured'}</span> : null}
      </div>
      {q.data?.storage && !q.data.connected ? <div className="note note-warn">{q.data.detail}</div> : null}
      <div className="cols">
        <Field label="Endpoint">{(id) => <input id={id} value={f.endpoint} onChange={set('endpoint')} placeholder="https://s3.example.com" required />}</Field>
        <Field label="Region">{(id) => <input id={id} value={f.region} onChange={set('region')} required />}</Field>
      </div>
      <div className="cols">
        <Field label="Bucket">{(id) => <input id={id} value={f.bucket} onChange={set('bucket')} required />}</Field>
        <Field label="Prefix" hint="Optional, ends with /">
          {(id) => <input id={id} value={f.prefix} onChange={set('prefix')} />}
        </Field>
      </div>
      <div className="cols">
        <Field label="Access key id">{(id) => <input id={id} value={f.accessKeyId} onChange={set('accessKeyId')} required autoComplete="off" />}</Field>
        <Field label="Secret access key" hint={q.data?.storage?.hasSecret ? 'Leave empty to keep the stored one' : undefined}>
          {(id) => <input id={id} type="password" value={f.secretAccessKey} onChange={set('secretAccessKey')} autoComplete="off" />}
        </Field>
      </div>
      <label className="check">
        <input type="checkbox" checked={f.forcePathStyle} onChange={(e) => setF({ ...f, forcePathStyle: e.target.checked })} /> Path-style addressing (MinIO, most self-hosted servers)
      </label>
      <ErrorNote error={save.error} />
      <div className="row end">
        {q.data?.storage ? <ConfirmButton label="Remove" title="Remove remote storage?" message="Backups already uploaded stay in the bucket." confirmLabel="Remove" busy={del.isPending} onConfirm={() => del.mutate(undefined)} /> : null}
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save and test
        </Button>
      </div>
    </form>
  );
}
