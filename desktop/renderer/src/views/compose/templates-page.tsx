// The template gallery of a project: the curated apps (GET /api/templates) with a search, and for
// the chosen one its variables, the plan (the same dry run as a compose import) and "Create".
import { useState } from 'react';
import { Link } from 'wouter';
import type { ComposeTemplate } from '../../../../../shared/types/compose.js';
import type { Project } from '../../../../../shared/types.js';
import { useGet } from '../../api/context';
import { Button, Empty, ErrorNote, Field, Loading } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';
import { TemplateForm } from './template-form';

export default function TemplatesPage({ slug }: { slug: string }) {
  const q = useGet<{ project: Project }>(['project', slug], apiPath('projects.get', { projectSlug: slug }));
  const templates = useGet<{ templates: ComposeTemplate[] }>(['templates'], apiPath('templates.list'), { staleTime: Infinity });
  const [chosen, setChosen] = useState<string | null>(null);
  if (q.isPending) return <Loading what="project" />;
  const p = q.data?.project;
  if (!p) return <ErrorNote error={q.error} />;
  const template = templates.data?.templates.find((t) => t.id === chosen) ?? null;
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href="/">Projects</Link> <span aria-hidden="true">/</span> <Link href={`/projects/${p.slug}`}>{p.name}</Link> <span aria-hidden="true">/</span> <span aria-current="page">Templates</span>
      </nav>
      <div className="page-head">
        <div>
          <h1>{template ? template.name : 'New from a template'}</h1>
          <p className="muted">
            {template ? template.description : `Well-known self-hosted apps with pinned versions, imported into ${p.name} like a compose file: you see the plan before anything is created.`}
          </p>
        </div>
        {template ? (
          <Button onClick={() => setChosen(null)}>All templates</Button>
        ) : (
          <Link href={`/projects/${p.slug}/compose`} className="btn btn-default">
            Import a compose file instead
          </Link>
        )}
      </div>
      {templates.isPending ? <Loading what="templates" /> : null}
      <ErrorNote error={templates.error} />
      {template ? <TemplateForm project={p} template={template} key={template.id} /> : templates.data ? <Gallery templates={templates.data.templates} onChoose={setChosen} /> : null}
    </div>
  );
}

function matches(t: ComposeTemplate, words: string[]): boolean {
  const text = `${t.name} ${t.description}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

function Gallery({ templates, onChoose }: { templates: ComposeTemplate[]; onChoose: (id: string) => void }) {
  const [search, setSearch] = useState('');
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = templates.filter((t) => matches(t, words));
  return (
    <section className="stack" aria-label="Templates">
      <div className="search">
        <Field label="Search templates">
          {(id) => <input id={id} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="analytics, git, passwords…" autoComplete="off" />}
        </Field>
      </div>
      <p className="sr-only" role="status">
        {shown.length} of {templates.length} templates
      </p>
      {shown.length === 0 ? (
        <Empty title="No template matches">Try another word, or import the app's own compose file.</Empty>
      ) : (
        <ul className="grid cards" aria-label="Template list">
          {shown.map((t) => (
            <li key={t.id}>
              <article className="card template-card" aria-labelledby={`template-${t.id}`}>
                <h2 id={`template-${t.id}`} className="card-title">
                  {t.name}
                </h2>
                <p>{t.description}</p>
                <p className="muted small">{t.resources}</p>
                <div className="row">
                  <a href={t.website} target="_blank" rel="noreferrer noopener" className="small">
                    Website<span className="sr-only"> of {t.name}</span>
                  </a>
                  <Button variant="primary" className="btn-small" onClick={() => onChoose(t.id)} aria-label={`Use ${t.name}`}>
                    Use this template
                  </Button>
                </div>
              </article>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
