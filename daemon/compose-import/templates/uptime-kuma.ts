import type { ComposeTemplate } from '../../../shared/types.js';

export const uptimeKuma: ComposeTemplate = {
  id: 'uptime-kuma',
  name: 'Uptime Kuma',
  description: 'A self-hosted monitoring tool: HTTP, TCP, DNS and keyword checks, status pages and notifications.',
  website: 'https://github.com/louislam/uptime-kuma',
  resources: 'About 150 MB of memory; its SQLite database and settings live in the data volume (back it up).',
  variables: [],
  compose: `services:
  uptime-kuma:
    image: louislam/uptime-kuma:1.23.16
    restart: unless-stopped
    ports:
      - "3001:3001"
    volumes:
      - uptime-kuma-data:/app/data
    deploy:
      resources:
        limits:
          memory: 512M
volumes:
  uptime-kuma-data:
`,
};
