import type { ComposeTemplate } from '../../../shared/types.js';

// The image's first start writes app.ini from the DB_* and other upper-case variables (Gitea's
// "managing deployments with environment variables"); Berth's variable names are upper case, so
// the GITEA__section__KEY form is not used.
export const gitea: ComposeTemplate = {
  id: 'gitea',
  name: 'Gitea',
  description: 'A lightweight self-hosted Git service: repositories, issues, pull requests and packages, with a managed PostgreSQL database.',
  website: 'https://about.gitea.com',
  resources: 'About 200 MB of memory and 100 MB for PostgreSQL; repositories live in the data volume.',
  variables: [
    { name: 'POSTGRES_PASSWORD', description: "The database user's password", generate: 'secret' },
    { name: 'SECRET_KEY', description: "Gitea's global secret key", generate: 'hex' },
    { name: 'DISABLE_REGISTRATION', description: 'true to allow only accounts created by an administrator', default: 'false' },
  ],
  compose: `services:
  server:
    image: gitea/gitea:1.22.3
    environment:
      - USER_UID=1000
      - USER_GID=1000
      - DB_TYPE=postgres
      - DB_HOST=db:5432
      - DB_NAME=gitea
      - DB_USER=gitea
      - DB_PASSWD=\${POSTGRES_PASSWORD}
      - SECRET_KEY=\${SECRET_KEY}
      - DISABLE_REGISTRATION=\${DISABLE_REGISTRATION}
      - INSTALL_LOCK=false
    restart: always
    volumes:
      - gitea:/data
    ports:
      - "3000:3000"
    depends_on:
      - db
  db:
    image: postgres:14
    restart: always
    environment:
      - POSTGRES_USER=gitea
      - POSTGRES_PASSWORD=\${POSTGRES_PASSWORD}
      - POSTGRES_DB=gitea
    volumes:
      - postgres:/var/lib/postgresql/data
volumes:
  gitea:
  postgres:
`,
};
