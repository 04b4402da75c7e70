// env list|get|set|unset|import|export: a service's variables, and .env files in and out.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ENV_KEY_PATTERN } from '../../shared/constants.js';
import { CliError, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';

/** One `KEY=value` line that Node's .env parser (util.parseEnv, also `node --env-file`) reads back as exactly `value`. */
function dotenvLine(key: string, value: string): string {
  if (/^[A-Za-z0-9_./:@%+,=${}-]*$/.test(value)) return `${key}=${value}`;
  // single quotes are literal (newlines included); double quotes turn \n into a newline; backticks are literal
  if (!value.includes("'")) return `${key}='${value}'`;
  if (!value.includes('"') && !value.includes('\\n')) return `${key}="${value}"`;
  if (!value.includes('`')) return `${key}=\`${value}\``;
  throw new CliError(`${key}'s value holds ', " and \` at once: a .env file cannot carry it (use berth env get ${key})`);
}

function readEnvFile(path: string): Record<string, string> {
  const text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  return parseEnv(text) as Record<string, string>;
}

export function registerEnvCommands(program: Command): void {
  const env = program.command('env').description("a service's environment variables");

  env
    .command('list')
    .description('the variables (keys; values with --values)')
    .argument('<service>')
    .option('--values', 'show values (and resolved ${service.VAR} references)')
    .action(async (ref: string, o: { values?: boolean }, cmd: Command) => {
      const s = openSession(cmd);
      const { env: vars } = await s.client.overview((await s.service(ref)).id);
      if (s.out.json) return vars.forEach((v) => s.out.event(v));
      if (vars.length === 0) return s.out.info('no variables');
      s.out.line(
        o.values
          ? table(
              ['KEY', 'VALUE', 'RESOLVED'],
              vars.map((v) => [v.key, v.value, v.resolvedValue]),
            )
          : vars.map((v) => v.key).join('\n'),
      );
    });

  env
    .command('get')
    .description("one variable's value (--resolved: with references resolved)")
    .argument('<service>')
    .argument('<key>')
    .option('--resolved', 'the value with ${service.VAR} references resolved')
    .action(async (ref: string, key: string, o: { resolved?: boolean }, cmd: Command) => {
      const s = openSession(cmd);
      const v = (await s.client.overview((await s.service(ref)).id)).env.find((e) => e.key === key);
      if (!v) throw new CliError(`no variable ${key}`);
      s.out.result(v, () => (o.resolved ? v.resolvedValue : v.value));
    });

  env
    .command('set')
    .description('create or update variables: KEY=VALUE ...')
    .argument('<service>')
    .argument('<pairs...>', 'KEY=VALUE')
    .action(async (ref: string, pairs: string[], _o, cmd: Command) => {
      const s = openSession(cmd);
      const entries = pairs.map((p) => {
        const eq = p.indexOf('=');
        if (eq <= 0) throw usageError(`expected KEY=VALUE, got ${p}`);
        const key = p.slice(0, eq);
        if (!ENV_KEY_PATTERN.test(key)) throw usageError(`${key} is not a valid key (${ENV_KEY_PATTERN.source})`);
        return [key, p.slice(eq + 1)] as const;
      });
      const service = await s.service(ref);
      for (const [key, value] of entries) await s.client.setEnv(service.id, key, value);
      s.out.result({ ok: true, set: entries.map(([k]) => k) }, () => '');
      s.out.success(`set ${entries.map(([k]) => k).join(', ')} on ${service.slug} (deploy to apply)`);
    });

  env
    .command('unset')
    .description('delete variables')
    .argument('<service>')
    .argument('<keys...>')
    .action(async (ref: string, keys: string[], _o, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const vars = (await s.client.overview(service.id)).env;
      const missing = keys.filter((k) => !vars.some((v) => v.key === k));
      if (missing.length > 0) throw new CliError(`no variable ${missing.join(', ')} on ${service.slug}`);
      for (const k of keys) await s.client.deleteEnv(service.id, vars.find((v) => v.key === k)!.id);
      s.out.result({ ok: true, unset: keys }, () => '');
      s.out.success(`unset ${keys.join(', ')} on ${service.slug} (deploy to apply)`);
    });

  env
    .command('import')
    .description('set every variable of a .env file (- for stdin); --prune deletes the ones the file lacks')
    .argument('<service>')
    .argument('<file>')
    .option('--prune', 'delete variables that are not in the file')
    .action(async (ref: string, file: string, o: { prune?: boolean }, cmd: Command) => {
      const s = openSession(cmd);
      let parsed: Record<string, string>;
      try {
        parsed = readEnvFile(file);
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
      }
      const bad = Object.keys(parsed).filter((k) => !ENV_KEY_PATTERN.test(k));
      if (bad.length > 0) throw new CliError(`${file} has keys Berth refuses (${ENV_KEY_PATTERN.source}): ${bad.join(', ')}; nothing was changed`);
      const service = await s.service(ref);
      const existing = (await s.client.overview(service.id)).env;
      const changed = Object.entries(parsed).filter(([k, v]) => existing.find((e) => e.key === k)?.value !== v);
      for (const [k, v] of changed) await s.client.setEnv(service.id, k, v);
      const pruned = o.prune ? existing.filter((e) => !(e.key in parsed)) : [];
      for (const e of pruned) await s.client.deleteEnv(service.id, e.id);
      const summary = { ok: true, set: changed.map(([k]) => k), unchanged: Object.keys(parsed).length - changed.length, deleted: pruned.map((e) => e.key) };
      s.out.result(summary, () => '');
      s.out.success(`${service.slug}: ${summary.set.length} set, ${summary.unchanged} unchanged, ${summary.deleted.length} deleted (deploy to apply)`);
    });

  env
    .command('export')
    .description('print the variables as a .env file (references stay as ${service.VAR})')
    .argument('<service>')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const vars = (await s.client.overview((await s.service(ref)).id)).env;
      if (s.out.json) return s.out.result(Object.fromEntries(vars.map((v) => [v.key, v.value])), () => '');
      for (const v of vars) s.out.line(dotenvLine(v.key, v.value));
    });
}
