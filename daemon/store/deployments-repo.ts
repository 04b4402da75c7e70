import type { Knex } from 'knex';
import type { DeploymentRecord } from '../core/records.js';
import type { DeploymentRepo } from '../core/store.js';

interface DeploymentRow {
  id: string;
  service_id: string;
  commit_sha: string | null;
  status: DeploymentRecord['status'];
  trigger: DeploymentRecord['trigger'];
  image_tag: string | null;
  container_name: string | null;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
}

const toRecord = (r: DeploymentRow): DeploymentRecord => ({
  id: r.id,
  serviceId: r.service_id,
  commitSha: r.commit_sha,
  status: r.status,
  trigger: r.trigger,
  imageTag: r.image_tag,
  containerName: r.container_name,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  createdAt: r.created_at,
});

export function deploymentRepo(knex: Knex): DeploymentRepo {
  return {
    async listByService(serviceId) {
      const rows = await knex<DeploymentRow>('deployments')
        .where({ service_id: serviceId })
        .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
      return rows.map(toRecord);
    },
  };
}
