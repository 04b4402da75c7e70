// PHP: composer.json or a plain index.php (at the top or in public/). Served by PHP's built-in
// server with several workers (PHP_CLI_SERVER_WORKERS), which needs no web-server configuration;
// Laravel runs through artisan serve.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

export function detectPhp(ctx: DetectContext): Detection | null {
  const f = ctx.files;
  const composer = f.json('composer.json');
  const docroot = f.isFile('public/index.php') ? 'public' : f.isFile('index.php') ? '.' : null;
  if (composer === null && docroot === null) return null;
  const require = { ...record(composer?.require), ...record(composer?.['require-dev']) };
  let framework: string | null = null;
  let start: string | null = docroot ? `php -S 0.0.0.0:$PORT -t ${docroot}` : null;
  if ('laravel/framework' in require || f.isFile('artisan')) {
    framework = 'laravel';
    start = 'php artisan serve --host=0.0.0.0 --port=$PORT';
  } else if ('symfony/framework-bundle' in require) {
    framework = 'symfony';
  } else if ('slim/slim' in require) framework = 'slim';
  return {
    stack: 'php',
    framework,
    tool: composer ? 'composer' : 'none',
    installCommand: composer ? 'composer install --no-dev --optimize-autoloader --no-interaction' : null,
    buildCommand: null,
    startCommand: start,
    staticOutput: null,
    defaultPort: 8080,
    buildImage: 'php',
    copyFromImages: composer ? [{ image: 'composer', from: '/usr/bin/composer', to: '/usr/bin/composer' }] : [],
    env: { PHP_CLI_SERVER_WORKERS: '4' },
    runtime: { kind: 'same' },
  };
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
