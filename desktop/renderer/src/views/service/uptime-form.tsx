// Adding or editing an uptime check: a target from the service's own domains (or its host port),
// a path, the expected status (or any 2xx/3xx), an optional keyword, and how often, how long to
// wait and how many failures open an incident, with the daemon's defaults filled in.
import { useState } from 'react';
import type { Check, NewCheckInput } from '../../../../../shared/types/checks.js';
import type { Domain } from '../../../../../shared/types.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useAction } from '../../api/context';
import { Button, Field } from '../../ui/kit';

export function CheckForm({ serviceId, domains, hasPort, check, onDone }: { serviceId: string; domains: Domain[]; hasPort: boolean; check?: Check; onDone: (c: Check) => void }) {
  const initialTarget = check ? (check.target.kind === 'domain' ? check.target.domainId : 'port') : (domains[0]?.id ?? 'port');
  const [name, setName] = useState(check?.name ?? '');
  const [target, setTarget] = useState(initialTarget);
  const [path, setPath] = useState(check?.path ?? '/');
  const [expect, setExpect] = useState(check ? (check.expectedStatus === null ? 'any' : String(check.expectedStatus)) : '200');
  const [keyword, setKeyword] = useState(check?.keyword ?? '');
  const [interval, setIntervalSeconds] = useState(String(check?.intervalSeconds ?? 60));
  const [timeout, setTimeoutSeconds] = useState(String(check?.timeoutSeconds ?? 10));
  const [failures, setFailures] = useState(String(check?.failuresBeforeIncident ?? 3));
  const [enabled, setEnabled] = useState(check?.enabled ?? true);
  const save = useAction<NewCheckInput, { check: Check }>(check ? 'PATCH' : 'POST', check ? apiPath('checks.patch', { serviceId, checkId: check.id }) : apiPath('checks.create', { serviceId }), {
    invalidate: [['checks', serviceId]],
    success: (r) => (check ? `Saved ${r.check.name}` : `Created ${r.check.name}`),
    onSuccess: (r) => onDone(r.check),
  });
  const statusOk = expect === 'any' || /^[1-5][0-9]{2}$/.test(expect);
  const ready = path.startsWith('/') && statusOk && Number(interval) > Number(timeout) && Number(failures) >= 1;
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready) return;
        save.mutate({
          ...(name.trim() ? { name: name.trim() } : {}),
          target: target === 'port' ? { kind: 'port' } : { kind: 'domain', domainId: target },
          path,
          expectedStatus: expect === 'any' ? null : Number(expect),
          keyword: keyword === '' ? null : keyword,
          intervalSeconds: Number(interval),
          timeoutSeconds: Number(timeout),
          failuresBeforeIncident: Number(failures),
          enabled,
        });
      }}
    >
      <div className="cols">
        <Field label="Target" hint="Requested through Berth's own proxy on this server, never through DNS.">
          {(id) => (
            <select id={id} value={target} onChange={(e) => setTarget(e.target.value)}>
              {domains.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.hostname}
                </option>
              ))}
              {hasPort ? <option value="port">Host port (127.0.0.1)</option> : null}
            </select>
          )}
        </Field>
        <Field label="Path">{(id) => <input id={id} className="mono" value={path} onChange={(e) => setPath(e.target.value)} spellCheck={false} required />}</Field>
      </div>
      <div className="cols">
        <Field
          label="Expected status"
          hint={statusOk ? 'A status such as 200, or "any" for any 2xx or 3xx. Redirects are not followed.' : <span className="tone-bad-text">a status from 100 to 599, or any</span>}
        >
          {(id) => <input id={id} className="mono" value={expect} onChange={(e) => setExpect(e.target.value.trim())} spellCheck={false} />}
        </Field>
        <Field label="Keyword (optional)" hint="Text the first 64 KB of the body must contain.">
          {(id) => <input id={id} value={keyword} onChange={(e) => setKeyword(e.target.value)} autoComplete="off" />}
        </Field>
      </div>
      <div className="cols">
        <Field label="Every (seconds)">{(id) => <input id={id} type="number" min={10} max={3600} value={interval} onChange={(e) => setIntervalSeconds(e.target.value)} />}</Field>
        <Field label="Timeout (seconds)">{(id) => <input id={id} type="number" min={1} max={60} value={timeout} onChange={(e) => setTimeoutSeconds(e.target.value)} />}</Field>
        <Field label="Failures before an incident">{(id) => <input id={id} type="number" min={1} max={20} value={failures} onChange={(e) => setFailures(e.target.value)} />}</Field>
      </div>
      <Field label="Name (optional)">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} placeholder="the domain and path" autoComplete="off" />}</Field>
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled (checks on its interval)
      </label>
      <div className="row end">
        <Button variant="primary" type="submit" busy={save.isPending} disabled={!ready}>
          {check ? 'Save check' : 'Add check'}
        </Button>
      </div>
    </form>
  );
}
