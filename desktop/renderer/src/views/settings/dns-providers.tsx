// DNS providers: connect (credentials checked by the server, then sealed), replace or disconnect.
import { useState } from 'react';
import type { DnsProviderId, DnsProviderStatus } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field, Modal } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

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

export function DnsProviders({ providers }: { providers: DnsProviderStatus[] }) {
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
  return (
    <ConfirmButton
      label="Disconnect"
      title={`Disconnect ${provider.name}?`}
      message="Its credentials are deleted from this server."
      confirmLabel="Disconnect"
      busy={del.isPending}
      onConfirm={() => del.mutate(undefined)}
    />
  );
}

function DnsForm({ provider, onClose }: { provider: DnsProviderStatus; onClose: () => void }) {
  const fields = DNS_FIELDS[provider.id];
  const [v, setV] = useState<Record<string, string>>({});
  const save = useAction<Record<string, string>>('PUT', apiPath('dns-providers.put', { providerId: provider.id }), {
    invalidate: [['settings']],
    success: `${provider.name} connected`,
    onSuccess: onClose,
  });
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
