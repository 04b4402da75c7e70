import type { ComposeTemplate } from '../../../shared/types.js';

export const metabase: ComposeTemplate = {
  id: 'metabase',
  name: 'Metabase',
  description: 'Business intelligence: questions, dashboards and alerts over your databases, its own settings in a managed PostgreSQL database.',
  website: 'https://www.metabase.com',
  resources: 'At least 1 GB of memory for Metabase (a Java application) and 100 MB for PostgreSQL.',
  variables: [{ name: 'POSTGRES_PASSWORD', description: "The database user's password", generate: 'secret' }],
  compose: `services:
  metabase:
    image: metabase/metabase:v0.50.30
    restart: always
    ports:
      - "3000:3000"
    environment:
      MB_DB_TYPE: postgres
      MB_DB_DBNAME: metabase
      MB_DB_PORT: 5432
      MB_DB_USER: metabase
      MB_DB_PASS: \${POSTGRES_PASSWORD}
      MB_DB_HOST: postgres
    depends_on:
      postgres:
        condition: service_healthy
    healthcheck:
      test: curl --fail -I http://localhost:3000/api/health || exit 1
      interval: 15s
      timeout: 5s
      retries: 5
    deploy:
      resources:
        limits:
          memory: 2G
  postgres:
    image: postgres:16-alpine
    restart: always
    environment:
      POSTGRES_USER: metabase
      POSTGRES_DB: metabase
      POSTGRES_PASSWORD: \${POSTGRES_PASSWORD}
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U metabase -d metabase"]
      interval: 5s
      timeout: 5s
      retries: 5
`,
};
