// Custom domains: add (with the reverse proxy's answer), change, remove, and create the DNS record
// through a connected DNS provider.
import { useState } from 'react';
import type { DnsProviderStatus, DnsRecordResult, Domain, ProxyResult, ServiceOverview, SystemSettings } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Field } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

function ProxyNote({ proxy }: { proxy: ProxyResult | null }) {
  if (!proxy) return null;
  return (
    <div className={proxy.ok ? 'note note-ok' : 'note note-warn'} role="status">
      Reverse proxy: {proxy.ok ? 'routing updated' : 'not applied'} — {proxy.detail}
    </div>
  );
}

export function DomainsTab({ overview }: { overview: ServiceOverview }) {
  const s = overview.service;
  const [hostname, setHostname] = useState('');
  const [proxy, setProxy] = useState<ProxyResult | null>(null);
  const settings = useGet<{ settings: SystemSettings; dnsProviders: DnsProviderStatus[] }>(['settings'], apiPath('system.settings'));
  const add = useAction<{ hostname: string }, { ok: true; proxy: ProxyResult }>('POST', apiPath('domains.add', { serviceId: s.id }), {
    invalidate: [['service', s.id], ['projects']],
    success: 'Domain added',
    onSuccess: (r) => {
      setProxy(r.proxy);
      setHostname('');
    },
  });
  const connected = (settings.data?.dnsProviders ?? []).filter((p) => p.connected);
  return (
    <div className="stack">
      <form
        className="card row wrap align-end"
        aria-label="Add a domain"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate({ hostname: hostname.trim() });
        }}
      >
        <Field label="Hostname" hint={`Point an A record at ${overview.publicIp || 'this server'}, or create it below with a DNS provider`}>
          {(id) => <input id={id} value={hostname} onChange={(e) => setHostname(e.target.value)} placeholder="app.example.com" required />}
        </Field>
        <Button type="submit" variant="primary" busy={add.isPending}>
          Add domain
        </Button>
      </form>
      <ErrorNote error={add.error} />
      <ProxyNote proxy={proxy} />
      {s.generatedHostname ? (
        <p className="muted" data-testid="generated-hostname">
          Generated address: <code>{s.generatedHostname}</code> (this project's own; no other project can take it)
        </p>
      ) : null}
      {overview.domains.length === 0 ? (
        <Empty title="No custom domains">The service answers on its local address. Add a hostname to serve it over HTTPS through the reverse proxy.</Empty>
      ) : (
        <ul className="list">
          {overview.domains.map((d) => (
            <DomainRow key={d.id} domain={d} serviceId={s.id} providers={connected} onProxy={setProxy} />
          ))}
        </ul>
      )}
    </div>
  );
}

function DomainRow({ domain: d, serviceId, providers, onProxy }: { domain: Domain; serviceId: string; providers: DnsProviderStatus[]; onProxy: (p: ProxyResult) => void }) {
  const [providerId, setProviderId] = useState<string>(providers[0]?.id ?? '');
  const [record, setRecord] = useState<DnsRecordResult | null>(null);
  const remove = useAction<void, { proxy: ProxyResult }>('DELETE', apiPath('domains.delete', { serviceId, domainId: d.id }), {
    invalidate: [['service', serviceId]],
    success: `${d.hostname} removed`,
    onSuccess: (r) => onProxy(r.proxy),
  });
  const dns = useAction<{ providerId: string }, { result: DnsRecordResult }>('POST', apiPath('domains.dns-record', { serviceId, domainId: d.id }), {
    success: (r) => `DNS record ${r.result.action}`,
    onSuccess: (r) => setRecord(r.result),
  });
  return (
    <li className="list-row">
      <div className="row between wrap">
        <div>
          <a href={`https://${d.hostname}`} target="_blank" rel="noreferrer noopener" className="strong">
            {d.hostname}
          </a>{' '}
          <span className="badge tone-ok">{d.status}</span>
        </div>
        <div className="row wrap">
          {providers.length > 0 ? (
            <>
              <label className="sr-only" htmlFor={`dns-${d.id}`}>
                DNS provider for {d.hostname}
              </label>
              <select id={`dns-${d.id}`} value={providerId} onChange={(e) => setProviderId(e.target.value)}>
                {providers.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
              <Button busy={dns.isPending} onClick={() => dns.mutate({ providerId })}>
                Create DNS record
              </Button>
            </>
          ) : (
            <span className="muted small">Connect a DNS provider in Settings to create its record from here.</span>
          )}
          <ConfirmButton
            label="Remove"
            title={`Remove ${d.hostname}?`}
            message="The reverse proxy stops serving this hostname."
            confirmLabel="Remove domain"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        </div>
      </div>
      <ErrorNote error={dns.error} />
      {record ? (
        <div className="note note-ok" role="status">
          {record.providerName}: {record.recordType} record {record.host}.{record.zone} → {record.targetIp} ({record.action})
        </div>
      ) : null}
    </li>
  );
}
