// The plan of an import (shared by the compose import and the template gallery): a table of what
// each compose service becomes, the choice "managed database or plain image" for the services
// with a known database image, what Berth could not take ("Not imported", in plain words), and the
// warnings. Nothing the daemon lists is left out here either.
import type { ReactNode } from 'react';
import type { ComposeBerthService, ComposeImportResult, ComposeServicePlan, ComposeTarget } from '../../../../../shared/types/compose.js';
import type { DatabaseEngine } from '../../../../../shared/types.js';
import { ENGINE_CAPABILITIES } from '../../../../../shared/engines.js';
import './compose.css';

function becomesLabel(target: ComposeTarget): string {
  if (target === 'image') return 'Image service';
  if (target === 'git') return 'Git service (built)';
  if (target === 'skipped') return 'Skipped';
  const engine = target.slice('database:'.length) as DatabaseEngine;
  return `Managed ${ENGINE_CAPABILITIES[engine]?.label ?? engine} database`;
}

function sourceText(b: ComposeBerthService): string {
  const i = b.input;
  if (i.repoFullName?.startsWith('database:')) return 'managed by Berth';
  if (i.dockerImage) return i.dockerImage;
  const repo = i.repoUrl ?? i.repoFullName ?? '';
  return [repo, i.branch, i.rootDir ? `/${i.rootDir}` : ''].filter(Boolean).join(' · ');
}

function portText(b: ComposeBerthService): string {
  if (b.input.runtimeMode === 'worker' || !b.input.internalPort) return '—';
  return `${b.input.internalPort}${b.generatedName ? ' · public name' : ''}`;
}

function Storage({ b }: { b: ComposeBerthService }) {
  const volumes = b.input.volumes ?? [];
  const files = b.input.files ?? [];
  if (volumes.length === 0 && files.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="plain-list">
      {volumes.map((v) => (
        <li key={`v:${v.name}`} className="mono small">
          {v.name} → {v.mountPath}
          {v.readOnly ? ' (ro)' : ''}
        </li>
      ))}
      {files.map((f) => (
        <li key={`f:${f.path}`} className="mono small">
          file {f.path}
        </li>
      ))}
    </ul>
  );
}

function DependsOn({ b }: { b: ComposeBerthService }) {
  if (b.dependsOn.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {b.dependsOn.map((d) => (
        <div key={d.service} className="small">
          {d.service}
          {d.condition === 'service_healthy' ? <span className="muted"> (healthy)</span> : d.condition === 'service_completed_successfully' ? <span className="muted"> (completed)</span> : null}
        </div>
      ))}
    </>
  );
}

/** The choice for a service with a known database image; shown while it is one or was kept as a plain image. */
function DatabaseChoice({ s, plain, onChange, busy }: { s: ComposeServicePlan; plain: boolean; onChange: (plain: boolean) => void; busy: boolean }) {
  return (
    <fieldset className="choice" disabled={busy}>
      <legend className="sr-only">Import {s.service} as</legend>
      <label className="check small">
        <input type="radio" name={`db-${s.service}`} checked={!plain} onChange={() => onChange(false)} /> Managed database
      </label>
      <label className="check small">
        <input type="radio" name={`db-${s.service}`} checked={plain} onChange={() => onChange(true)} /> Keep as plain image
      </label>
    </fieldset>
  );
}

function ServiceRow({ s, choice }: { s: ComposeServicePlan; choice: ReactNode }) {
  const b = s.berthService;
  return (
    <tr>
      <th scope="row" className="strong">
        {s.service}
      </th>
      <td>
        <span className={`badge ${s.becomes === 'skipped' ? 'tone-muted' : s.becomes.startsWith('database:') ? 'tone-info' : 'tone-ok'}`}>{becomesLabel(s.becomes)}</span>
        {choice}
      </td>
      <td className="strong">{b?.name ?? '—'}</td>
      <td className="mono small break source">{b ? sourceText(b) : '—'}</td>
      <td className="small">{b ? portText(b) : '—'}</td>
      <td>{b ? <Storage b={b} /> : '—'}</td>
      <td>{b ? <DependsOn b={b} /> : '—'}</td>
      <td className="mono small break">{s.mapped.length > 0 ? s.mapped.join(', ') : <span className="muted">none</span>}</td>
    </tr>
  );
}

export interface PlanViewProps {
  plan: ComposeImportResult;
  /** Compose services kept as plain images (sent as plainImages). */
  plainImages: string[];
  /** Absent where there is no choice (nothing to re-preview). */
  onPlainImagesChange?: (next: string[]) => void;
  /** Absent where files cannot be supplied (a template brings its own). */
  onSupplyFile?: (path: string) => void;
  busy: boolean;
}

export function PlanView({ plan, plainImages, onPlainImagesChange, onSupplyFile, busy }: PlanViewProps) {
  const choosable = (s: ComposeServicePlan) => s.becomes.startsWith('database:') || plainImages.includes(s.service);
  const toggle = (service: string, plain: boolean) => onPlainImagesChange?.(plain ? [...plainImages.filter((x) => x !== service), service] : plainImages.filter((x) => x !== service));
  return (
    <section className="stack" aria-label="Import plan">
      <h2 className="h3">Plan</h2>
      <div className="table-scroll">
        <table className="table plan">
          <caption className="sr-only">What each compose service becomes</caption>
          <thead>
            <tr>
              <th scope="col">Compose service</th>
              <th scope="col">Becomes</th>
              <th scope="col">Berth service</th>
              <th scope="col">Image or source</th>
              <th scope="col">Port</th>
              <th scope="col">Volumes and files</th>
              <th scope="col">Depends on</th>
              <th scope="col">Mapped keys</th>
            </tr>
          </thead>
          <tbody>
            {plan.services.map((s) => (
              <ServiceRow
                key={s.service}
                s={s}
                choice={onPlainImagesChange && choosable(s) ? <DatabaseChoice s={s} plain={plainImages.includes(s.service)} onChange={(p) => toggle(s.service, p)} busy={busy} /> : null}
              />
            ))}
          </tbody>
        </table>
      </div>
      {plan.order.length > 1 ? <p className="muted small">Created and first deployed in this order: {plan.order.join(' → ')}.</p> : null}
      {plan.mapped && plan.mapped.length > 0 ? (
        <p className="muted small">
          Top-level keys taken: <span className="mono">{plan.mapped.join(', ')}</span>.
        </p>
      ) : null}
      <NotImported plan={plan} onSupplyFile={onSupplyFile} />
      <Warnings warnings={plan.warnings} />
    </section>
  );
}

/** The path of a bind-mounted file whose content the daemon asks for (its reason names it), or null. */
function missingFile(why: string): string | null {
  return /^the content of (\S+) was not supplied/.exec(why)?.[1] ?? null;
}

function NotImported({ plan, onSupplyFile }: { plan: ComposeImportResult; onSupplyFile?: (path: string) => void }) {
  if (plan.unsupported.length === 0) return <p className="note note-ok">Every key of the file is mapped: nothing is left out.</p>;
  return (
    <section className="stack-tight" aria-label="Not imported">
      <h3 className="h4">Not imported ({plan.unsupported.length})</h3>
      <p className="muted small">Berth does not take these parts of the file. The rest is imported without them.</p>
      <table className="table">
        <caption className="sr-only">Not imported</caption>
        <thead>
          <tr>
            <th scope="col">Service</th>
            <th scope="col">Key</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {plan.unsupported.map((u, i) => (
            <tr key={`${u.service ?? ''}:${u.key}:${i}`}>
              <td>{u.service ?? <span className="muted">(top level)</span>}</td>
              <td className="mono">{u.key}</td>
              <td>
                {u.why}
                <SupplyFile path={missingFile(u.why)} onSupplyFile={onSupplyFile} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function SupplyFile({ path, onSupplyFile }: { path: string | null; onSupplyFile?: (path: string) => void }) {
  if (!path || !onSupplyFile) return null;
  return (
    <div>
      <button type="button" className="btn btn-small" onClick={() => onSupplyFile(path)}>
        Supply the content of {path}
      </button>
    </div>
  );
}

function Warnings({ warnings }: { warnings: string[] }) {
  if (warnings.length === 0) return null;
  return (
    <div className="note note-warn" role="note" aria-label="Warnings">
      <strong>Warnings</strong>
      <ul className="warnings">
        {warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}
