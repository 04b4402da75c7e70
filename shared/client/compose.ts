// The client's calls for importing a compose file or a template into a project, and the gallery.
import type { ComposeImportInput, ComposeImportResult, ComposeTemplate } from '../types/compose.js';
import { ExecClient } from './exec.js';

export class ComposeClient extends ExecClient {
  /** The plan (dryRun), or the plan and the created services. */
  importCompose(projectId: string, input: ComposeImportInput): Promise<ComposeImportResult> {
    return this.api('compose.import', { projectId }, input);
  }
  listTemplates(): Promise<{ templates: ComposeTemplate[] }> {
    return this.api('templates.list', {});
  }
}
