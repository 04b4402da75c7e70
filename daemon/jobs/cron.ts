// Cron expressions and time zones for core (the CronPort): node-cron's parser says what is valid,
// cronstrue says it in words (24-hour clock, the time zone after it), Intl knows the IANA zones.
import cronstrue from 'cronstrue';
import cron from 'node-cron';
import type { CronPort } from '../core/ports/jobs-repo.js';

export const cronRules: CronPort = {
  valid: (expression) => {
    try {
      return cron.validate(expression);
    } catch {
      return false;
    }
  },
  validTimezone: (zone) => {
    if (zone.length === 0 || zone.length > 64) return false;
    try {
      new Intl.DateTimeFormat(undefined, { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  },
  describe: (expression, timezone) => {
    try {
      return `${cronstrue.toString(expression, { use24HourTimeFormat: true, verbose: false })} (${timezone})`;
    } catch {
      return `${expression} (${timezone})`;
    }
  },
};
