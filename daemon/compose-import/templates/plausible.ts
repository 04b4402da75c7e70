import type { ComposeTemplate } from '../../../shared/types.js';

// After the community edition's compose file (plausible/community-edition, v2.1): the app
// creates and migrates its databases before it starts.
export const plausible: ComposeTemplate = {
  id: 'plausible',
  name: 'Plausible Analytics',
  description: 'Lightweight, cookie-free web analytics, with managed PostgreSQL and ClickHouse databases.',
  website: 'https://plausible.io',
  resources: 'At least 2 GB of memory in all (ClickHouse takes most of it); the event database grows with traffic.',
  variables: [
    { name: 'BASE_URL', description: 'The address Plausible is served at, such as https://plausible.example.com', required: true },
    { name: 'SECRET_KEY_BASE', description: 'Signs sessions (64 hex digits)', generate: 'hex' },
    { name: 'POSTGRES_PASSWORD', description: "PostgreSQL's password", generate: 'secret' },
    { name: 'CLICKHOUSE_PASSWORD', description: "ClickHouse's password", generate: 'secret' },
  ],
  compose: `services:
  plausible_db:
    image: postgres:16-alpine
    restart: always
    volumes:
      - db-data:/var/lib/postgresql/data
    environment:
      - POSTGRES_PASSWORD=\${POSTGRES_PASSWORD}
      - POSTGRES_DB=plausible_db
  plausible_events_db:
    image: clickhouse/clickhouse-server:24.3.3.102-alpine
    restart: always
    volumes:
      - event-data:/var/lib/clickhouse
    environment:
      - CLICKHOUSE_DB=plausible_events_db
      - CLICKHOUSE_USER=plausible
      - CLICKHOUSE_PASSWORD=\${CLICKHOUSE_PASSWORD}
  plausible:
    image: ghcr.io/plausible/community-edition:v2.1.4
    restart: always
    command: sh -c "/entrypoint.sh db createdb && /entrypoint.sh db migrate && /entrypoint.sh run"
    depends_on:
      - plausible_db
      - plausible_events_db
    ports:
      - "8000:8000"
    environment:
      - BASE_URL=\${BASE_URL}
      - SECRET_KEY_BASE=\${SECRET_KEY_BASE}
      - DATABASE_URL=postgres://postgres:\${POSTGRES_PASSWORD}@plausible_db:5432/plausible_db
      - CLICKHOUSE_DATABASE_URL=http://plausible:\${CLICKHOUSE_PASSWORD}@plausible_events_db:8123/plausible_events_db
    deploy:
      resources:
        limits:
          memory: 1G
volumes:
  db-data:
  event-data:
`,
};
