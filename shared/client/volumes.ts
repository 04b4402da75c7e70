// The client's calls for volumes: a project's volumes, and volume backups (the database backups'
// shapes and verbs under /api/services/:serviceId/volumes/:volumeName/backups).
import { DatabasesClient } from './databases.js';

export class VolumesClient extends DatabasesClient {}
