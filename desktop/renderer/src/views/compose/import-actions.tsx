// The end of both import forms: the refusal beside the form, "Preview plan" and "Create N services"
// (only for a plan that is still what the form holds), and the plan itself.
import type { ComposeImportInput } from '../../../../../shared/types/compose.js';
import { Button, ErrorNote } from '../../ui/kit';
import { PlanView } from './plan-view';
import { createdCount, type ComposeImport } from './use-compose-import';

export function ImportActions({
  imp,
  input,
  ready,
  onPlainImagesChange,
  onSupplyFile,
}: {
  imp: ComposeImport;
  input: ComposeImportInput;
  /** False while the form lacks what the daemon needs (an empty file). */
  ready: boolean;
  onPlainImagesChange?: (next: string[]) => void;
  onSupplyFile?: (path: string) => void;
}) {
  const plan = imp.plan;
  const count = plan ? createdCount(plan) : 0;
  const busy = imp.previewing || imp.creating;
  return (
    <>
      <ErrorNote error={imp.error} />
      {plan && imp.stale && !imp.previewing ? <p className="note note-info">The form changed since this plan: preview it again before creating.</p> : null}
      <div className="row end">
        <Button busy={imp.previewing} disabled={!ready || imp.creating} onClick={() => imp.preview(input)}>
          {plan ? 'Preview again' : 'Preview plan'}
        </Button>
        <Button variant="primary" busy={imp.creating} disabled={!plan || imp.stale || count === 0 || imp.previewing} onClick={() => imp.create(input)}>
          {plan ? `Create ${count} service${count === 1 ? '' : 's'}` : 'Create services'}
        </Button>
      </div>
      {plan ? (
        <PlanView
          plan={plan}
          plainImages={input.plainImages ?? []}
          busy={busy}
          onSupplyFile={onSupplyFile}
          onPlainImagesChange={
            onPlainImagesChange
              ? (next) => {
                  onPlainImagesChange(next);
                  // the choice changes the plan: preview it with the new choice at once
                  imp.preview({ ...input, plainImages: next });
                }
              : undefined
          }
        />
      ) : null}
    </>
  );
}
