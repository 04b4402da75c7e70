import type { ComposeTemplate } from '../../../shared/types.js';

export const vaultwarden: ComposeTemplate = {
  id: 'vaultwarden',
  name: 'Vaultwarden',
  description: 'A lightweight server compatible with the Bitwarden password manager apps.',
  website: 'https://github.com/dani-garcia/vaultwarden',
  resources: 'About 50 MB of memory; its SQLite database and attachments live in the data volume (back it up). Bitwarden apps need HTTPS: add a domain.',
  variables: [
    { name: 'DOMAIN', description: 'The HTTPS address it is served at, such as https://vault.example.com', required: true },
    { name: 'SIGNUPS_ALLOWED', description: 'true to let anyone create an account', default: 'false' },
    { name: 'ADMIN_TOKEN', description: 'The admin page token (/admin)', generate: 'secret' },
  ],
  compose: `services:
  vaultwarden:
    image: vaultwarden/server:1.32.3
    restart: unless-stopped
    environment:
      DOMAIN: \${DOMAIN}
      SIGNUPS_ALLOWED: \${SIGNUPS_ALLOWED}
      ADMIN_TOKEN: \${ADMIN_TOKEN}
    volumes:
      - vw-data:/data
    ports:
      - "8080:80"
volumes:
  vw-data:
`,
};
