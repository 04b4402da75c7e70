// The schedule of Berth's own backup (core's ServerBackupSchedulePort): one node-cron task for the
// server, in UTC, loaded only once a schedule is set (node-cron keeps ICU data resident). `fire()`
// takes the scheduled path now without waiting for the clock: the test hook, as the jobs' one.
import type { ScheduledTask } from 'node-cron';
import type { ServerBackupSchedulePort } from '../core/ports/server-backups.js';

export class ServerBackupSchedule implements ServerBackupSchedulePort {
  private task: ScheduledTask | null = null;
  private due: (() => Promise<void>) | null = null;
  private stopped = false;

  constructor(private readonly log: (message: string, err?: unknown) => void) {}

  async arm(schedule: string | null, fire: () => Promise<void>): Promise<void> {
    this.disarm();
    if (schedule === null || this.stopped) return;
    this.due = fire;
    try {
      const cron = (await import('node-cron')).default;
      if (this.stopped || this.due !== fire) return;
      this.task = cron.schedule(schedule, () => void this.fire(), { timezone: 'UTC', name: 'berth-server-backup' });
    } catch (err) {
      this.log("arming the schedule of Berth's backup", err);
    }
  }

  nextRun(): Date | null {
    return this.task?.getNextRun() ?? null;
  }

  /** The scheduled path, now (what the task calls when due). Resolves once the run has started, been skipped or refused. */
  async fire(): Promise<void> {
    await this.due?.();
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private disarm(): void {
    this.due = null;
    const task = this.task;
    this.task = null;
    if (task) void Promise.resolve(task.destroy()).catch(() => undefined);
  }
}
