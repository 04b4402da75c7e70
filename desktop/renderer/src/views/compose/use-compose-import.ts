// One hook for both ways into a project (a pasted compose file, a template of the gallery): the
// plan of the last preview (a dry run), whether what the form holds now is still what was
// previewed, and the import itself, which goes back to the project page where the services appear.
import { useState } from 'react';
import { useLocation } from 'wouter';
import type { ComposeImportInput, ComposeImportResult } from '../../../../../shared/types/compose.js';
import type { Project } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { apiPath } from '../../../../../shared/api-routes.js';

export interface ComposeImport {
  /** The plan of the last preview, or null before one. */
  plan: ComposeImportResult | null;
  /** True when `input` differs from what the shown plan was made from. */
  stale: boolean;
  previewing: boolean;
  creating: boolean;
  /** The last refusal (a 400 naming the key, a 409), of the preview or the import. */
  error: unknown;
  preview(input: ComposeImportInput): void;
  create(input: ComposeImportInput): void;
}

/** The input without dryRun, as a stable string (what "is the plan still current" compares). */
const keyOf = (input: ComposeImportInput) => JSON.stringify({ ...input, dryRun: undefined, plainImages: [...(input.plainImages ?? [])].sort() });

export function useComposeImport(project: Project, current: ComposeImportInput): ComposeImport {
  const [, navigate] = useLocation();
  const [plan, setPlan] = useState<{ key: string; result: ComposeImportResult } | null>(null);
  const preview = useAction<ComposeImportInput, ComposeImportResult>('POST', apiPath('compose.import', { projectId: project.id }), { notifyErrors: false });
  const create = useAction<ComposeImportInput, ComposeImportResult>('POST', apiPath('compose.import', { projectId: project.id }), {
    // the services, the project's volumes and its quota usage changed (the live events say so too)
    invalidate: [['projects'], ['project', project.slug], ['volumes', project.id], ['project-quotas', project.id]],
    success: (r) => `Created ${r.created?.length ?? 0} services in ${project.name}; their first deployments are starting`,
    onSuccess: () => navigate(`/projects/${project.slug}`),
    notifyErrors: false,
  });
  const lastError = create.error ?? preview.error;
  return {
    plan: plan?.result ?? null,
    stale: plan !== null && plan.key !== keyOf(current),
    previewing: preview.isPending,
    creating: create.isPending,
    error: lastError,
    preview(input) {
      create.reset();
      preview.mutate({ ...input, dryRun: true }, { onSuccess: (result) => setPlan({ key: keyOf(input), result }) });
    },
    create(input) {
      preview.reset();
      create.mutate({ ...input, dryRun: false });
    },
  };
}

/** The services an import creates (all but the skipped ones). */
export function createdCount(plan: ComposeImportResult): number {
  return plan.services.filter((s) => s.becomes !== 'skipped').length;
}
