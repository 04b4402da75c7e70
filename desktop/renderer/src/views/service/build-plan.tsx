// What the first deployment would build, read from the branch's head without building.
import type { BuildPlanPreview } from '../../../../../shared/types.js';
import { useGet } from '../../api/context';
import { ErrorNote, Loading } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

export function BuildPlan({ serviceId }: { serviceId: string }) {
  const q = useGet<{ plan: BuildPlanPreview }>(['plan', serviceId], apiPath('services.build-plan', { serviceId }), { staleTime: 60_000 });
  return (
    <section className="card plan" aria-label="Build plan">
      <h2 className="h3">Build plan</h2>
      {q.isPending ? <Loading what="the build plan (reading the repository)" /> : null}
      <ErrorNote error={q.error} />
      {q.data ? <PlanBody plan={q.data.plan} /> : null}
    </section>
  );
}

function PlanBody({ plan: p }: { plan: BuildPlanPreview }) {
  const facts: [string, string | null][] = [
    ['Builder', p.buildMethod === 'dockerfile' ? 'Dockerfile' : p.buildMethod === 'autobuild' ? 'Autobuild (generated Dockerfile)' : null],
    ['Branch', `${p.branch} @ ${p.commitSha.slice(0, 7)}`],
    ['Stack', [p.stack, p.framework].filter(Boolean).join(' · ') || null],
    ['Tool', p.tool],
    ['Install', p.installCommand],
    ['Build', p.buildCommand],
    ['Start', p.startCommand],
    ['Port', p.port !== null ? String(p.port) : null],
    ['Output', p.staticOutput],
    ['Base images', p.baseImages.join(', ') || null],
  ];
  return (
    <div className="stack">
      {p.error ? (
        <div className="note note-error" role="alert">
          A deployment would fail: {p.error}
        </div>
      ) : (
        <div className="note note-ok">Ready to deploy.</div>
      )}
      <dl className="facts-grid">
        {facts
          .filter(([, v]) => v)
          .map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd className="mono">{v}</dd>
            </div>
          ))}
      </dl>
      {p.notes.length > 0 ? (
        <ul className="notes">
          {p.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      {p.dockerfile ? (
        <details>
          <summary>Generated Dockerfile</summary>
          <pre className="code">{p.dockerfile}</pre>
        </details>
      ) : null}
    </div>
  );
}
