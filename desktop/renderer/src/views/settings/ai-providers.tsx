// AI providers that explain failed deployments: the list, adding one, removing one.
import { useState } from 'react';
import type { AiProvider, AiProviderKind } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field, Modal } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

export function AiProviders() {
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
              <span className="strong">{p.name}</span>{' '}
              <span className="muted small">{p.kind === 'local' ? 'built in, offline' : `${p.kind}${p.defaultModel ? ` · ${p.defaultModel}` : ''}${p.baseUrl ? ` · ${p.baseUrl}` : ''}`}</span>
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
  return (
    <ConfirmButton
      label="Remove"
      title={`Remove ${provider.name}?`}
      message="Its API key is deleted from this server."
      confirmLabel="Remove"
      busy={del.isPending}
      onConfirm={() => del.mutate(undefined)}
    />
  );
}

function AiForm({ onClose }: { onClose: () => void }) {
  const [f, setF] = useState({ id: '', kind: 'openai' as AiProviderKind, name: '', apiKey: '', baseUrl: '', defaultModel: '' });
  const save = useAction<Record<string, unknown>>('PUT', () => apiPath('ai-providers.put', { providerId: f.id || f.kind }), {
    invalidate: [['ai-providers']],
    success: 'Provider saved',
    onSuccess: onClose,
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  return (
    <Modal open title="Add an AI provider" onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({
            kind: f.kind,
            ...(f.name ? { name: f.name } : {}),
            apiKey: f.apiKey,
            ...(f.baseUrl ? { baseUrl: f.baseUrl } : {}),
            ...(f.defaultModel ? { defaultModel: f.defaultModel } : {}),
          });
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
