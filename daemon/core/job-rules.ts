// The rules of a scheduled job, stated once: what a name, a schedule, a time zone and a command may
// be, the defaults, and the caps (jobs per service; runs under way per service and per project).
// The HTTP edge checks the shapes (zod, http/routes/jobs.ts); core checks the rest here, with the
// cron parser behind a port, and every refusal names its rule.
import type { NewJobInput } from '../../shared/types/jobs.js';
import { InvalidInput } from './errors.js';
import type { CronPort, JobRecord } from './ports/jobs-repo.js';

const JOB_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const JOB_NAME_RULE = 'a job name is 1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or digit';
const DEFAULT_TIMEOUT_SECONDS = 3600;
const MAX_TIMEOUT_SECONDS = 86_400;
const MAX_COMMAND_ARGS = 64;
const MAX_COMMAND_ARG_CHARS = 4096;
const MAX_COMMAND_TOTAL_CHARS = 16_384;
export const MAX_JOBS_PER_SERVICE = 20;
const MAX_RUNS_PER_SERVICE = 3;
const MAX_RUNS_PER_PROJECT = 5;
/** Runs kept per job (with their logs); older ones are pruned when a run ends. */
export const RUNS_KEPT_PER_JOB = 100;
/** Output kept per run: lines and bytes; what comes after is dropped and the log says so. */
export const RUN_LOG_MAX_LINES = 5000;
export const RUN_LOG_MAX_BYTES = 1024 * 1024;

const FIELD = /^[0-9A-Za-z*,/-]+$/;

/** Checks a schedule: exactly five fields, each of cron's characters, and one the parser accepts (jobs, Berth's own backup). */
export function checkSchedule(cron: CronPort, schedule: string): string {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length === 6)
    throw new InvalidInput(
      'schedule has 6 fields: a seconds field is not allowed (a job runs at most once a minute); give exactly 5 fields: minute hour day-of-month month day-of-week',
      'invalid_schedule',
    );
  if (fields.length !== 5 || fields.some((f) => !FIELD.test(f)))
    throw new InvalidInput('schedule must be exactly 5 cron fields: minute hour day-of-month month day-of-week (e.g. "0 3 * * *")', 'invalid_schedule');
  if (fields.some((f) => /\/0+(?![0-9])/.test(f))) throw new InvalidInput('schedule has a step of 0 (such as */0): a step must be at least 1', 'invalid_schedule');
  const normal = fields.join(' ');
  if (!cron.valid(normal)) throw new InvalidInput(`schedule "${normal}" is not a valid cron expression (a value out of range or an unknown name)`, 'invalid_schedule');
  return normal;
}

function checkTimezone(cron: CronPort, zone: string): string {
  if (!cron.validTimezone(zone)) throw new InvalidInput(`timezone "${zone.slice(0, 64)}" is not an IANA time zone (such as UTC or Europe/Paris)`, 'invalid_timezone');
  return zone;
}

function checkCommand(command: readonly string[]): string[] {
  if (command.length === 0 || command[0] === '') throw new InvalidInput('command must be a non-empty argv array whose first item names the program', 'invalid_command');
  if (command.length > MAX_COMMAND_ARGS) throw new InvalidInput(`command has more than ${MAX_COMMAND_ARGS} arguments`, 'invalid_command');
  if (command.some((a) => a.length > MAX_COMMAND_ARG_CHARS)) throw new InvalidInput(`a command argument is longer than ${MAX_COMMAND_ARG_CHARS} characters`, 'invalid_command');
  if (command.reduce((n, a) => n + a.length, 0) > MAX_COMMAND_TOTAL_CHARS) throw new InvalidInput(`command is longer than ${MAX_COMMAND_TOTAL_CHARS} characters in all`, 'invalid_command');
  if (command.some((a) => a.includes('\0'))) throw new InvalidInput('a command argument contains a NUL character', 'invalid_command');
  return [...command];
}

/** The fields of a job once checked, defaults filled in. */
export function jobFields(cron: CronPort, input: NewJobInput): Omit<JobRecord, 'id' | 'serviceId' | 'createdAt' | 'updatedAt'> {
  if (!JOB_NAME_PATTERN.test(input.name)) throw new InvalidInput(JOB_NAME_RULE, 'invalid_name');
  const timeoutSeconds = input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS)
    throw new InvalidInput(`timeoutSeconds must be an integer from 1 to ${MAX_TIMEOUT_SECONDS}`, 'invalid_timeout');
  return {
    name: input.name,
    schedule: checkSchedule(cron, input.schedule),
    timezone: checkTimezone(cron, input.timezone ?? 'UTC'),
    command: checkCommand(input.command),
    timeoutSeconds,
    enabled: input.enabled ?? true,
    concurrency: input.concurrency ?? 'forbid',
  };
}

/** Why a new run may not start now (a cap), or null. */
export function runCapReason(running: { service: number; project: number }): string | null {
  if (running.service >= MAX_RUNS_PER_SERVICE) return `the cap of ${MAX_RUNS_PER_SERVICE} job runs at a time per service was reached`;
  if (running.project >= MAX_RUNS_PER_PROJECT) return `the cap of ${MAX_RUNS_PER_PROJECT} job runs at a time per project was reached`;
  return null;
}
