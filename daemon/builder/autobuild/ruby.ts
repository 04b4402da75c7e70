// Ruby: Gemfile. Rails (config/application.rb or the rails gem) and Rack apps (config.ru) get a
// start command bound to 0.0.0.0:$PORT; Sinatra apps without config.ru run their app file.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

export function detectRuby(ctx: DetectContext): Detection | null {
  const f = ctx.files;
  const gemfile = f.read('Gemfile');
  if (gemfile === null) return null;
  const gem = (name: string) => new RegExp(`^\\s*gem\\s+['"]${name}['"]`, 'm').test(gemfile);
  const env: Record<string, string> = { BUNDLE_WITHOUT: 'development:test' };
  let framework: string | null = null;
  let build: string | null = null;
  let start: string | null = null;
  if (gem('rails') || f.isFile('config/application.rb')) {
    framework = 'rails';
    Object.assign(env, { RAILS_ENV: 'production', RAILS_LOG_TO_STDOUT: '1', RAILS_SERVE_STATIC_FILES: '1' });
    if (f.isDir('app/assets') || f.isDir('app/javascript')) build = 'SECRET_KEY_BASE_DUMMY=1 bundle exec rails assets:precompile';
    start = 'bundle exec rails server -b 0.0.0.0 -p $PORT';
  } else if (f.isFile('config.ru')) {
    framework = gem('sinatra') ? 'sinatra' : 'rack';
    start = 'bundle exec rackup config.ru -o 0.0.0.0 -p $PORT';
  } else if (gem('sinatra')) {
    framework = 'sinatra';
    const app = ['app.rb', 'main.rb', 'server.rb'].find((n) => f.isFile(n));
    if (app) start = `bundle exec ruby ${app} -o 0.0.0.0 -p $PORT`;
  } else {
    const app = ['app.rb', 'main.rb', 'server.rb'].find((n) => f.isFile(n));
    if (app) start = `bundle exec ruby ${app}`;
  }
  return {
    stack: 'ruby',
    framework,
    tool: 'bundler',
    installCommand: 'bundle install',
    buildCommand: build,
    startCommand: start,
    staticOutput: null,
    defaultPort: 3000,
    buildImage: 'ruby',
    env,
    runtime: { kind: 'same' },
  };
}
