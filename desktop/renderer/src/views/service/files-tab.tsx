// A service's config files: mounted read-only into its containers at their path, with their mode.
// List, add or edit one in a plain-text editor (CodeMirror), delete one. Each save sends the whole
// list (PATCH files) and redeploys the service.
import { useEffect, useRef, useState } from 'react';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import type { ConfigFile, ConfigFileInput, Service } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Field } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

const asInput = (f: ConfigFile): ConfigFileInput => ({ path: f.path, content: f.content, mode: f.mode });

interface Draft {
  /** The path of the file being edited; null for a new one. */
  original: string | null;
  path: string;
  mode: string;
  content: string;
}

export default function FilesTab({ service: s }: { service: Service }) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const save = useAction<{ files: ConfigFileInput[] }>('PATCH', apiPath('services.patch', { serviceId: s.id }), {
    invalidate: [['service', s.id]],
    success: 'Config files saved; the service redeploys with them',
  });
  return (
    <div className="stack">
      <div className="note note-info">
        Each file is mounted read-only into the service's containers at its path. Saving a change redeploys the service. <span className="mono">{'${VAR}'}</span> and{' '}
        <span className="mono">{'${service.VAR}'}</span> in a file resolve like references in variables.
      </div>
      {s.files.length === 0 && !draft ? <Empty title="No config files">Add an nginx.conf, a Caddyfile or a JSON config the app reads at start.</Empty> : null}
      {s.files.length > 0 ? (
        <table className="table">
          <caption className="sr-only">Config files of {s.name}</caption>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Mode</th>
              <th scope="col">Size</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {s.files.map((f) => (
              <tr key={f.path}>
                <td className="mono">{f.path}</td>
                <td className="mono">{f.mode}</td>
                <td>{new TextEncoder().encode(f.content).length} bytes</td>
                <td className="right nowrap">
                  <Button className="btn-small" aria-label={`Edit ${f.path}`} onClick={() => setDraft({ original: f.path, path: f.path, mode: f.mode, content: f.content })}>
                    Edit
                  </Button>{' '}
                  <ConfirmButton
                    label="Delete"
                    title={`Delete ${f.path}?`}
                    message="The file is no longer mounted; the service redeploys without it."
                    confirmLabel="Delete file"
                    busy={save.isPending}
                    onConfirm={() => save.mutate({ files: s.files.filter((x) => x.path !== f.path).map(asInput) })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {draft ? (
        <FileEditor
          key={draft.original ?? 'new'}
          draft={draft}
          busy={save.isPending}
          error={save.error}
          onCancel={() => setDraft(null)}
          onSave={(d) => {
            const others = s.files.filter((x) => x.path !== d.original).map(asInput);
            save.mutate({ files: [...others, { path: d.path.trim(), content: d.content, mode: d.mode.trim() || '0644' }] }, { onSuccess: () => setDraft(null) });
          }}
        />
      ) : (
        <div>
          <Button variant="primary" onClick={() => setDraft({ original: null, path: '', mode: '0644', content: '' })}>
            Add a config file
          </Button>
        </div>
      )}
    </div>
  );
}

function FileEditor({ draft, busy, error, onSave, onCancel }: { draft: Draft; busy: boolean; error: unknown; onSave: (d: Draft) => void; onCancel: () => void }) {
  const [path, setPath] = useState(draft.path);
  const [mode, setMode] = useState(draft.mode);
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  useEffect(() => {
    // In a shadow root CodeMirror styles itself through constructed style sheets, which the
    // console's CSP (style-src 'self') allows, unlike <style> elements (as in the query console).
    const shadow = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: 'open' });
    const v = new EditorView({
      doc: draft.content,
      root: shadow,
      parent: shadow,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        EditorView.contentAttributes.of({ 'aria-label': 'File content', 'aria-multiline': 'true' }),
        EditorView.theme({
          '&': { fontSize: '13px', minHeight: '200px', maxHeight: '480px', background: 'var(--panel)', color: 'var(--text)', border: '1px solid var(--border)', borderRadius: '8px' },
          '&.cm-focused': { outline: '2px solid var(--focus)' },
          '.cm-scroller': { overflow: 'auto' },
          '.cm-content': { fontFamily: 'var(--mono)', caretColor: 'var(--text)', minHeight: '200px' },
          '.cm-gutters': { background: 'var(--panel-2)', borderRight: '1px solid var(--border)', color: 'var(--muted)' },
          '.cm-activeLine, .cm-activeLineGutter': { background: 'color-mix(in srgb, var(--accent) 7%, transparent)' },
          '.cm-cursor': { borderLeftColor: 'var(--text)' },
        }),
      ],
    });
    view.current = v;
    return () => v.destroy();
  }, [draft.content]);
  return (
    <form
      className="card stack"
      aria-label={draft.original ? `Edit ${draft.original}` : 'New config file'}
      onSubmit={(e) => {
        e.preventDefault();
        onSave({ ...draft, path, mode, content: view.current?.state.doc.toString() ?? '' });
      }}
    >
      <h2 className="h3">{draft.original ? `Edit ${draft.original}` : 'New config file'}</h2>
      <div className="row wrap align-end">
        <Field label="Path in the container" hint="Absolute, such as /etc/nginx/conf.d/app.conf.">
          {(id) => <input id={id} className="mono" value={path} onChange={(e) => setPath(e.target.value)} placeholder="/etc/app/config.json" required autoComplete="off" />}
        </Field>
        <Field label="Mode" hint="Octal, such as 0644 or 0755.">
          {(id) => <input id={id} className="mono short" value={mode} onChange={(e) => setMode(e.target.value)} autoComplete="off" />}
        </Field>
      </div>
      <div className="field">
        <span className="field-label">Content</span>
        <div ref={host} className="file-editor" />
      </div>
      <ErrorNote error={error} />
      <div className="row end">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          Save file and redeploy
        </Button>
      </div>
    </form>
  );
}
