// What a status page shows of a service, from its uptime checks (core/checks.ts): down while one of
// its checks has an incident open, each day's share of successful checks over all its checks, and
// the incidents' times. Nothing else of a check (its name, target, path, error) leaves here.
import type { PublicIncident, ServiceUptime, UptimeDay, UptimeSource } from './ports/status-pages.js';

/** The part of the checks' repository a status page reads (store/checks-repo.ts has it). */
export interface CheckFacts {
  listByService(serviceId: string): Promise<{ id: string; enabled: boolean; openIncidentId: string | null; lastCheckedAt: string | null }[]>;
  daily(checkId: string, fromDay: string): Promise<{ day: string; checks: number; up: number }[]>;
  incidents(checkId: string, limit: number): Promise<{ startedAt: string; resolvedAt: string | null }[]>;
}

const DAY_MS = 86_400_000;
const INCIDENTS_PER_CHECK = 50;

export function checksUptime(checks: CheckFacts): UptimeSource {
  return {
    async uptimeOf(serviceId, days, now) {
      const nowMs = Date.parse(now);
      const dates = Array.from({ length: days }, (_, i) => new Date(nowMs - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
      const list = await checks.listByService(serviceId);
      const totals = new Map<string, { checks: number; up: number }>();
      const incidents: PublicIncident[] = [];
      for (const check of list) {
        for (const d of await checks.daily(check.id, dates[0]!)) {
          const t = totals.get(d.day) ?? { checks: 0, up: 0 };
          t.checks += d.checks;
          t.up += d.up;
          totals.set(d.day, t);
        }
        for (const i of await checks.incidents(check.id, INCIDENTS_PER_CHECK)) {
          if (i.resolvedAt === null || i.resolvedAt >= `${dates[0]!}T`) incidents.push({ startedAt: i.startedAt, resolvedAt: i.resolvedAt });
        }
      }
      const perDay: UptimeDay[] = dates.map((date) => {
        const t = totals.get(date);
        return { date, ratio: t && t.checks > 0 ? t.up / t.checks : null };
      });
      const ran = list.some((c) => c.lastCheckedAt !== null);
      const state: ServiceUptime['state'] = list.some((c) => c.openIncidentId !== null) ? 'down' : ran ? 'up' : 'unknown';
      incidents.sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1));
      return { state, days: perDay, incidents };
    },
  };
}
