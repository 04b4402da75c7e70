import type { ComposeTemplate } from '../../../shared/types.js';

export const umami: ComposeTemplate = {
  id: 'umami',
  name: 'Umami',
  description: 'Simple, privacy-focused web analytics without cookies, with a managed PostgreSQL database.',
  website: 'https://umami.is',
  resources: 'About 300 MB of memory for the app and 100 MB for PostgreSQL; the database grows with the events recorded.',
  variables: [
    { name: 'APP_SECRET', description: 'The secret that signs sessions', generate: 'hex' },
    { name: 'POSTGRES_PASSWORD', description: "The database user's password", generate: 'secret' },
  ],
  compose: `services:
  umami:
    image: ghcr.io/umami-software/umami:postgresql-v2.13.2
    ports:
      - "3000:3000"
    environment:
      DATABASE_URL: postgresql://umami:\${POSTGRES_PASSWORD}@db:5432/umami
      DATABASE_TYPE: postgresql
      APP_SECRET: \${APP_SECRET}
    depends_on:
      db:
        condition: service_healthy
    restart: always
  db:
    image: postgres:15-alpine
    environment:
      POSTGRES_DB: umami
      POSTGRES_USER: umami
      POSTGRES_PASSWORD: \${POSTGRES_PASSWORD}
    volumes:
      - umami-db-data:/var/lib/postgresql/data
    restart: always
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U umami -d umami"]
      interval: 5s
      timeout: 5s
      retries: 5
volumes:
  umami-db-data:
`,
};
