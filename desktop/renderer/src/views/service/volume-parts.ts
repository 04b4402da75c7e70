// What the service's Volumes tab and the project's volumes card share: a volume's size as people
// read it, and the PATCH of a service's volume list.
import type { Service, ServiceVolumeInput } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { apiPath } from '../../../../../shared/api-routes.js';

/** "12.4 MB", "980 KB"; "—" when Docker has not measured it. */
export function sizeText(n: number | null): string {
  if (n === null || !Number.isFinite(n) || n < 0) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 || v >= 100 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

/** PATCH the service's whole volume list (a volume left out is detached, never deleted). */
export function useVolumesPatch(s: Pick<Service, 'id' | 'projectId'>, success: string) {
  return useAction<{ volumes: ServiceVolumeInput[] }>('PATCH', apiPath('services.patch', { serviceId: s.id }), {
    invalidate: [['service', s.id], ['volumes', s.projectId], ['project']],
    success,
  });
}
