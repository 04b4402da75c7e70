// Contents of the files a compose file bind-mounts (`./nginx.conf:/etc/nginx/nginx.conf:ro`), by
// the path as written in it: with its content such a mount becomes a config file of the service;
// without, the plan lists it as not imported.
import { useState } from 'react';
import { Button, Field } from '../../ui/kit';

export function BoundFiles({ files, onChange }: { files: Record<string, string>; onChange: (next: Record<string, string>) => void }) {
  const [open, setOpen] = useState(false);
  const entries = Object.entries(files);
  const set = (path: string, content: string) => onChange({ ...files, [path]: content });
  const remove = (path: string) => onChange(Object.fromEntries(entries.filter(([p]) => p !== path)));
  if (!open && entries.length === 0)
    return (
      <div>
        <Button className="btn-small" onClick={() => setOpen(true)}>
          Add the content of a bind-mounted file…
        </Button>
      </div>
    );
  return (
    <fieldset className="stack-tight file-rows">
      <legend className="strong">Bind-mounted files</legend>
      <p className="muted small">The path exactly as the compose file writes it (./nginx.conf); the file becomes a config file of its service.</p>
      {entries.map(([path, content]) => (
        <div key={path} className="stack-tight">
          <div className="row">
            <span className="mono strong">{path}</span>
            <Button className="btn-small" onClick={() => remove(path)} aria-label={`Remove ${path}`}>
              Remove
            </Button>
          </div>
          <textarea data-file={path} aria-label={`Content of ${path}`} className="mono" value={content} onChange={(e) => set(path, e.target.value)} rows={4} spellCheck={false} />
        </div>
      ))}
      <NewFile onAdd={(path) => set(path, '')} taken={(p) => p in files} />
    </fieldset>
  );
}

function NewFile({ onAdd, taken }: { onAdd: (path: string) => void; taken: (path: string) => boolean }) {
  const [path, setPath] = useState('');
  const clean = path.trim();
  return (
    <div className="row">
      <Field label="Path in the compose file">{(id) => <input id={id} className="mono" value={path} onChange={(e) => setPath(e.target.value)} placeholder="./nginx.conf" spellCheck={false} />}</Field>
      <Button
        className="btn-small"
        disabled={clean === '' || taken(clean)}
        onClick={() => {
          onAdd(clean);
          setPath('');
        }}
      >
        Add file
      </Button>
    </div>
  );
}
