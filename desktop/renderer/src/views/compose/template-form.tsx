// One template's variables (defaults prefilled; a variable left empty is generated or takes its
// default), the plan of the import and "Create".
import { useState } from 'react';
import type { ComposeImportInput, ComposeTemplate, ComposeTemplateVariable } from '../../../../../shared/types/compose.js';
import type { Project } from '../../../../../shared/types.js';
import { Field } from '../../ui/kit';
import { ImportActions } from './import-actions';
import { useComposeImport } from './use-compose-import';

function hintOf(v: ComposeTemplateVariable) {
  const note = v.generate
    ? `Generated if left empty (${v.generate === 'hex' ? '64 hex digits' : 'a random secret'}).`
    : v.required
      ? 'Required.'
      : v.default !== undefined
        ? `Default: ${v.default}`
        : '';
  const description = v.description && !/[.!?]$/.test(v.description) ? `${v.description}.` : v.description;
  return [description, note].filter(Boolean).join(' ');
}

export function TemplateForm({ project, template }: { project: Project; template: ComposeTemplate }) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(template.variables.map((v) => [v.name, v.generate ? '' : (v.default ?? '')])));
  const [plainImages, setPlainImages] = useState<string[]>([]);
  // a variable left empty is left out: the daemon generates it or uses its default
  const variables = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
  const input: ComposeImportInput = { template: template.id, variables, ...(plainImages.length > 0 ? { plainImages } : {}) };
  const imp = useComposeImport(project, input);
  const missing = template.variables.filter((v) => v.required && !values[v.name]?.trim());
  return (
    <form
      className="card stack"
      aria-label={`Import ${template.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        imp.preview(input);
      }}
    >
      <p className="muted small">
        {template.resources}{' '}
        <a href={template.website} target="_blank" rel="noreferrer noopener">
          {template.website.replace(/^https?:\/\//, '')}
        </a>
      </p>
      {template.variables.length === 0 ? <p className="muted">This template asks for nothing.</p> : null}
      <div className="cols">
        {template.variables.map((v) => (
          <Field key={v.name} label={`${v.name}${v.required ? ' (required)' : ''}`} hint={hintOf(v)}>
            {(id) => (
              <input
                id={id}
                className="mono"
                value={values[v.name] ?? ''}
                onChange={(e) => setValues({ ...values, [v.name]: e.target.value })}
                placeholder={v.generate ? 'generated' : ''}
                required={v.required}
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </Field>
        ))}
      </div>
      {missing.length > 0 ? <p className="muted small">Fill in {missing.map((v) => v.name).join(', ')} to preview.</p> : null}
      <ImportActions imp={imp} input={input} ready={missing.length === 0} onPlainImagesChange={setPlainImages} />
    </form>
  );
}
