// How `berth compose import` and `berth templates import` print an import's plan for people: a
// table of what each compose service becomes, what was not imported (with why), the warnings,
// and the services created.
import type { ComposeBerthService, ComposeImportResult, ComposeTarget } from '../../shared/types/compose.js';
import { table } from './output.js';

function becomesText(target: ComposeTarget): string {
  if (target.startsWith('database:')) return `managed ${target.slice('database:'.length)}`;
  return target;
}

function sourceText(b: ComposeBerthService): string {
  const i = b.input;
  if (i.repoFullName?.startsWith('database:')) return '(managed)';
  if (i.dockerImage) return i.dockerImage;
  return [i.repoUrl ?? i.repoFullName ?? '', i.rootDir ? `/${i.rootDir}` : ''].join('');
}

function portText(b: ComposeBerthService): string {
  if (b.input.runtimeMode === 'worker' || !b.input.internalPort) return '';
  return `${b.input.internalPort}${b.generatedName ? ' (public)' : ''}`;
}

const volumesText = (b: ComposeBerthService) => [...(b.input.volumes ?? []).map((v) => `${v.name}:${v.mountPath}`), ...(b.input.files ?? []).map((f) => `file ${f.path}`)].join(', ');

const dependsText = (b: ComposeBerthService) => b.dependsOn.map((d) => (d.condition === 'service_healthy' ? `${d.service} (healthy)` : d.service)).join(', ');

/** The plan, the not-imported list, the warnings and (after an import) the services created. */
export function planText(r: ComposeImportResult): string {
  const parts: string[] = [];
  parts.push(
    table(
      ['COMPOSE SERVICE', 'BECOMES', 'BERTH SERVICE', 'IMAGE/SOURCE', 'PORT', 'VOLUMES', 'DEPENDS ON'],
      r.services.map((s) => {
        const b = s.berthService;
        return [s.service, becomesText(s.becomes), b?.name ?? '', b ? sourceText(b) : '', b ? portText(b) : '', b ? volumesText(b) : '', b ? dependsText(b) : ''];
      }),
    ),
  );
  if (r.unsupported.length > 0) {
    parts.push('', `Not imported (${r.unsupported.length}):`);
    parts.push(
      table(
        ['SERVICE', 'KEY', 'WHY'],
        r.unsupported.map((u) => [u.service ?? '(top level)', u.key, u.why]),
      ),
    );
  } else parts.push('', 'Every key is mapped: nothing is left out.');
  if (r.warnings.length > 0) parts.push('', 'Warnings:', ...r.warnings.map((w) => `- ${w}`));
  if (r.created) {
    parts.push('', `Created ${r.created.length} service${r.created.length === 1 ? '' : 's'} (first deployments started, in this order):`);
    parts.push(
      table(
        ['NAME', 'ID', 'STATUS'],
        r.created.map((s) => [s.name, s.id, s.status]),
      ),
    );
  }
  return parts.join('\n');
}
