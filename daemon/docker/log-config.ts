// The log driver every container Berth creates gets: Docker's json-file, bounded. Without
// `max-size` the Engine keeps all a container ever printed in /var/lib/docker (a tenant printing
// 16 KB lines filled gigabytes there besides Berth's own log store); with it, at most
// MAX_FILE files of MAX_SIZE each per container. Berth follows the live stream, so the files only
// serve `docker logs` and a restart's catch-up.
const CONTAINER_LOG_MAX_SIZE = '10m';
const CONTAINER_LOG_MAX_FILE = '3';

export const BOUNDED_LOG_CONFIG = {
  Type: 'json-file',
  Config: { 'max-size': CONTAINER_LOG_MAX_SIZE, 'max-file': CONTAINER_LOG_MAX_FILE },
};
