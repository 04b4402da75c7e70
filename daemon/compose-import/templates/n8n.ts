import type { ComposeTemplate } from '../../../shared/types.js';

export const n8n: ComposeTemplate = {
  id: 'n8n',
  name: 'n8n',
  description: 'Workflow automation with a visual editor and hundreds of integrations, backed by a managed PostgreSQL database.',
  website: 'https://n8n.io',
  resources: 'About 400 MB of memory (more for heavy workflows) and 100 MB for PostgreSQL.',
  variables: [
    { name: 'N8N_ENCRYPTION_KEY', description: 'Encrypts the credentials n8n stores (keep it: they cannot be read without it)', generate: 'hex' },
    { name: 'POSTGRES_PASSWORD', description: "The database user's password", generate: 'secret' },
    { name: 'GENERIC_TIMEZONE', description: 'The time zone of schedules', default: 'UTC' },
  ],
  compose: `services:
  postgres:
    image: postgres:16-alpine
    restart: always
    environment:
      POSTGRES_USER: n8n
      POSTGRES_PASSWORD: \${POSTGRES_PASSWORD}
      POSTGRES_DB: n8n
    volumes:
      - db_storage:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -h localhost -U n8n -d n8n"]
      interval: 5s
      timeout: 5s
      retries: 10
  n8n:
    image: docker.n8n.io/n8nio/n8n:1.64.3
    restart: always
    environment:
      - DB_TYPE=postgresdb
      - DB_POSTGRESDB_HOST=postgres
      - DB_POSTGRESDB_PORT=5432
      - DB_POSTGRESDB_DATABASE=n8n
      - DB_POSTGRESDB_USER=n8n
      - DB_POSTGRESDB_PASSWORD=\${POSTGRES_PASSWORD}
      - N8N_ENCRYPTION_KEY=\${N8N_ENCRYPTION_KEY}
      - GENERIC_TIMEZONE=\${GENERIC_TIMEZONE}
    ports:
      - "5678:5678"
    volumes:
      - n8n_storage:/home/node/.n8n
    depends_on:
      postgres:
        condition: service_healthy
volumes:
  db_storage:
  n8n_storage:
`,
};
