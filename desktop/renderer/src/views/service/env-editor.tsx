// Environment variables: values with their resolved form, add or change one with completion of
// `${service.VARIABLE}` references from the suggestion endpoint, delete.
import { useMemo, useRef, useState } from 'react';
import type { DatabaseVariableSuggestion, ServiceOverview, Suggestion } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Field } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

const KEY_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

export function EnvEditor({ overview }: { overview: ServiceOverview }) {
  const s = overview.service;
  const [show, setShow] = useState(false);
  return (
    <div className="stack">
      <EnvForm serviceId={s.id} />
      {overview.env.length === 0 ? (
        <Empty title="No variables">Add one above. Reference another service's variable with {'${name.VARIABLE}'}; it resolves when the service deploys.</Empty>
      ) : (
        <table className="table">
          <caption className="sr-only">Variables</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">
                Value{' '}
                <button type="button" className="btn btn-ghost btn-small" onClick={() => setShow(!show)} aria-pressed={show}>
                  {show ? 'Hide values' : 'Show values'}
                </button>
              </th>
              <th scope="col">Resolved</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {overview.env.map((v) => (
              <tr key={v.id}>
                <td className="mono strong">{v.key}</td>
                <td className="mono small truncate">{show || v.value.includes('${') ? v.value : '••••••••'}</td>
                <td className="mono small truncate">
                  {v.value.includes('${') ? show ? v.resolvedValue : v.resolvedValue ? '•••• (resolved)' : <span className="tone-bad-text">unresolved</span> : <span className="muted">—</span>}
                </td>
                <td className="right">
                  <DeleteVar serviceId={s.id} envId={v.id} name={v.key} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function DeleteVar({ serviceId, envId, name }: { serviceId: string; envId: string; name: string }) {
  const del = useAction('DELETE', apiPath('env.delete', { serviceId, envId }), { invalidate: [['service', serviceId]], success: `${name} deleted` });
  return (
    <ConfirmButton
      label="Delete"
      title={`Delete ${name}?`}
      message="The running service keeps its value until the next deployment."
      confirmLabel="Delete variable"
      busy={del.isPending}
      onConfirm={() => del.mutate(undefined)}
    />
  );
}

function EnvForm({ serviceId }: { serviceId: string }) {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const valueRef = useRef<HTMLInputElement>(null);
  const suggestions = useGet<{ suggestions: Suggestion[]; databaseVariables: DatabaseVariableSuggestion[] }>(['suggestions', serviceId], apiPath('services.suggestion-keys', { serviceId }));
  const save = useAction<{ key: string; value: string }>('POST', apiPath('env.set', { serviceId }), {
    invalidate: [['service', serviceId]],
    success: 'Variable saved; it applies at the next deployment',
    onSuccess: () => {
      setKey('');
      setValue('');
    },
  });
  // completion: after an unclosed "${", offer references matching what follows it
  const open = value.lastIndexOf('${');
  const typing = open >= 0 && !value.slice(open).includes('}') ? value.slice(open + 2).toLowerCase() : null;
  const options = useMemo(() => {
    if (typing === null) return [];
    const all = [
      ...(suggestions.data?.databaseVariables ?? []).map((d) => ({ ref: d.value.replace(/^\$\{|\}$/g, ''), label: d.label })),
      ...(suggestions.data?.suggestions ?? []).filter((x) => x.key.includes('.')).map((x) => ({ ref: x.key, label: x.label })),
    ];
    const seen = new Set<string>();
    return all.filter((o) => !seen.has(o.ref) && seen.add(o.ref) && o.ref.toLowerCase().includes(typing)).slice(0, 8);
  }, [typing, suggestions.data]);
  const keyOk = key === '' || KEY_PATTERN.test(key);
  return (
    <form
      className="card stack"
      aria-label="Add or change a variable"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ key, value });
      }}
    >
      <div className="cols env-form">
        <Field label="Key" hint={keyOk ? 'Upper case, digits and _' : 'Use A-Z, 0-9 and _; not starting with a digit'}>
          {(id) => <input id={id} value={key} onChange={(e) => setKey(e.target.value.toUpperCase())} className="mono" aria-invalid={!keyOk} placeholder="DATABASE_URL" required />}
        </Field>
        <Field label="Value" hint="Type ${ to reference another service's variable">
          {(id) => (
            <input id={id} ref={valueRef} value={value} onChange={(e) => setValue(e.target.value)} className="mono" autoComplete="off" aria-controls={options.length ? 'env-suggestions' : undefined} />
          )}
        </Field>
      </div>
      {options.length > 0 ? (
        <ul id="env-suggestions" className="suggestions" aria-label="References">
          {options.map((o) => (
            <li key={o.ref}>
              <button
                type="button"
                className="suggestion"
                onClick={() => {
                  setValue(value.slice(0, open) + '${' + o.ref + '}');
                  valueRef.current?.focus();
                }}
              >
                <span className="mono">{'${' + o.ref + '}'}</span> <span className="muted small">{o.label}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorNote error={save.error} />
      <div className="row end">
        <Button type="submit" variant="primary" busy={save.isPending} disabled={!key || !keyOk}>
          Save variable
        </Button>
      </div>
    </form>
  );
}
