import type { ComposeTemplate } from '../../../shared/types.js';

// Ghost reads its settings from lower-case nconf variables (database__client...), which Berth's
// upper-case variable names cannot carry: its config.production.json comes as a config file
// instead, with Berth references to the managed MySQL database's variables and the service's own
// PUBLIC_URL (resolved at each deployment).
const config = `{
  "url": "\${PUBLIC_URL}",
  "server": { "port": 2368, "host": "::" },
  "database": {
    "client": "mysql",
    "connection": {
      "host": "\${db.PRIVATE_HOST}",
      "port": 3306,
      "user": "\${db.MYSQL_USER}",
      "password": "\${db.MYSQL_PASSWORD}",
      "database": "\${db.MYSQL_DATABASE}"
    }
  },
  "mail": { "transport": "Direct" },
  "logging": { "transports": ["stdout"] },
  "process": "local",
  "paths": { "contentPath": "/var/lib/ghost/content" }
}
`;

export const ghost: ComposeTemplate = {
  id: 'ghost',
  name: 'Ghost',
  description: 'A publishing platform for blogs and newsletters, with a managed MySQL database.',
  website: 'https://ghost.org',
  resources: 'About 300 MB of memory for Ghost and 400 MB for MySQL; images and themes live in the content volume.',
  variables: [
    { name: 'URL', description: 'The address the blog is served at, such as https://blog.example.com', required: true },
    { name: 'MYSQL_PASSWORD', description: "The database user's password", generate: 'secret' },
    { name: 'MYSQL_ROOT_PASSWORD', description: "MySQL's root password", generate: 'secret' },
  ],
  compose: `services:
  ghost:
    image: ghost:5.96.0
    restart: always
    ports:
      - "2368:2368"
    environment:
      NODE_ENV: production
      PUBLIC_URL: \${URL}
    volumes:
      - ghost-content:/var/lib/ghost/content
      - ./config.production.json:/var/lib/ghost/config.production.json:ro
    depends_on:
      db:
        condition: service_healthy
  db:
    image: mysql:8.0
    restart: always
    environment:
      MYSQL_ROOT_PASSWORD: \${MYSQL_ROOT_PASSWORD}
      MYSQL_DATABASE: ghost
      MYSQL_USER: ghost
      MYSQL_PASSWORD: \${MYSQL_PASSWORD}
    volumes:
      - ghost-db:/var/lib/mysql
    healthcheck:
      test: ["CMD", "mysqladmin", "ping", "-h", "localhost"]
      interval: 5s
      retries: 10
volumes:
  ghost-content:
  ghost-db:
`,
  files: { './config.production.json': config },
};
