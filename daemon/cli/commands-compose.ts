// compose import, templates [list] | import: a docker-compose file or a template of the gallery
// imported into a project (the linked one or --project): the plan (--dry-run), or the services
// created and their first deployments started.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { ComposeImportInput, ComposeImportResult } from '../../shared/types/compose.js';
import { planText } from './compose-plan-text.js';
import { usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession, type Session } from './session.js';

/** Commander's accumulator for a repeatable option. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A file's text, `-` for stdin; one that cannot be read is a usage error (exit 2). */
function readText(path: string, what: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(`cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message}`);
  }
}

/** `KEY=VALUE` pairs of a repeatable option as an object; a pair without `=` is a usage error. */
function pairs(list: string[], option: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const at = item.indexOf('=');
    if (at <= 0) throw usageError(`${option} takes NAME=VALUE, not ${item}`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

async function importInto(s: Session, input: ComposeImportInput): Promise<void> {
  const project = await s.scopeProject();
  if (!project) throw usageError('which project? pass --project or link one (berth link)');
  if (!input.dryRun) s.out.info(`importing into ${project.slug}...`);
  const result: ComposeImportResult = await s.client.importCompose(project.id, input);
  s.out.result(result, () => planText(result));
  if (input.dryRun) s.out.info(`dry run: nothing was created in ${project.slug}`);
  else s.out.success(`imported into ${project.slug}; follow the deployments with berth services --project ${project.slug}`);
}

interface ComposeOptions {
  env?: string;
  file?: string[];
  repository?: string;
  branch?: string;
  plainImage?: string[];
  dryRun?: boolean;
}

export function registerComposeCommands(program: Command): void {
  const compose = program.command('compose').description('import a docker-compose file into a project');
  compose
    .command('import')
    .description('import a compose file (- for stdin) into the project: each compose service becomes a Berth service; prints the plan, what was not imported and why')
    .argument('<file>')
    // not --env-file: Node 20 takes `--env-file <path>` anywhere in argv as its own option (it loads
    // that file into berth's own environment, where BERTH_TOKEN or NODE_OPTIONS would apply, and
    // exits 9 when it is missing)
    .option('--env <file>', 'a .env file for ${VARIABLE} interpolation')
    .option('--file <composePath=localPath>', 'the content of a file the compose file bind-mounts, by its path as written there (repeatable); it becomes a config file', collect)
    .option('--repository <url>', 'the git repository build: services come from')
    .option('--branch <branch>', 'its branch (with --repository)')
    .option('--plain-image <service>', 'keep this compose service as a plain image instead of a managed database (repeatable)', collect)
    .option('--dry-run', 'print the plan; create nothing')
    .action(async (file: string, o: ComposeOptions, cmd: Command) => {
      if (o.branch && !o.repository) throw usageError('--branch goes with --repository');
      const files = Object.fromEntries(Object.entries(pairs(o.file ?? [], '--file')).map(([composePath, local]) => [composePath, readText(local, `the file for ${composePath}`)]));
      const input: ComposeImportInput = {
        compose: readText(file, 'the compose file'),
        ...(o.env ? { env: readText(o.env, 'the env file') } : {}),
        ...(Object.keys(files).length > 0 ? { files } : {}),
        ...(o.repository ? { repository: { url: o.repository, ...(o.branch ? { branch: o.branch } : {}) } } : {}),
        ...(o.plainImage?.length ? { plainImages: o.plainImage } : {}),
        dryRun: Boolean(o.dryRun),
      };
      await importInto(openSession(cmd), input);
    });

  const templates = program.command('templates').description('the template gallery: well-known apps ready to import');
  templates
    .command('list', { isDefault: true })
    .description('the templates, with the variables each asks for')
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const { templates: list } = await s.client.listTemplates();
      if (s.out.json) return list.forEach((t) => s.out.event(t));
      s.out.line(
        table(
          ['ID', 'NAME', 'DESCRIPTION', 'VARIABLES', 'RESOURCES'],
          list.map((t) => [t.id, t.name, t.description, t.variables.map((v) => `${v.name}${v.required ? '*' : v.generate ? ' (generated)' : ''}`).join(', '), t.resources]),
        ),
      );
    });
  templates
    .command('import')
    .description('import a template into the project (variables left out are generated or take their default)')
    .argument('<id>')
    .option('--var <name=value>', 'a variable of the template (repeatable)', collect)
    .option('--plain-image <service>', 'keep this compose service as a plain image instead of a managed database (repeatable)', collect)
    .option('--dry-run', 'print the plan; create nothing')
    .action(async (id: string, o: { var?: string[]; plainImage?: string[]; dryRun?: boolean }, cmd: Command) => {
      const variables = pairs(o.var ?? [], '--var');
      await importInto(openSession(cmd), { template: id, variables, ...(o.plainImage?.length ? { plainImages: o.plainImage } : {}), dryRun: Boolean(o.dryRun) });
    });
}
