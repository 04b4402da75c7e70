// The client's calls for a service's scheduled jobs and their runs.
import { VolumesClient } from './volumes.js';

export class JobsClient extends VolumesClient {}
