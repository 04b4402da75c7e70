// Python: requirements.txt, pyproject.toml (Poetry or PEP 621), Pipfile, or a conventional entry
// file. Django, Flask and FastAPI are recognised from the dependencies; the start command binds
// 0.0.0.0:$PORT.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

const ENTRY_FILES = ['main.py', 'app.py', 'server.py', 'wsgi.py', 'run.py'];

/** `entryOnly`: whether a lone entry file (main.py, app.py, ...) is enough, with no dependency manifest. */
export function detectPython(ctx: DetectContext, entryOnly: boolean): Detection | null {
  const f = ctx.files;
  const requirements = f.read('requirements.txt');
  const pyproject = f.read('pyproject.toml');
  const pipfile = f.read('Pipfile');
  const manage = f.isFile('manage.py');
  const entry = ENTRY_FILES.find((n) => f.isFile(n)) ?? null;
  const manifest = requirements !== null || pyproject !== null || pipfile !== null || f.isFile('setup.py') || manage;
  if (!manifest && (!entryOnly || entry === null)) return null;

  const depText = [requirements, pyproject, pipfile]
    .filter((t) => t !== null)
    .join('\n')
    .toLowerCase();
  const dep = (name: string) => new RegExp(`(^|[\\s"'\\[,])${name}\\s*([<>=!~;\\[,"'\\s]|$)`, 'm').test(depText);
  let tool = 'pip';
  let install: string | null = null;
  if (requirements !== null) install = 'pip install --no-cache-dir -r requirements.txt';
  else if (pyproject !== null && (/\[tool\.poetry\]/.test(pyproject) || f.isFile('poetry.lock'))) {
    tool = 'poetry';
    install = 'pip install --no-cache-dir poetry && poetry config virtualenvs.create false && poetry install --no-interaction --no-root';
  } else if (pipfile !== null) {
    tool = 'pipenv';
    install = 'pip install --no-cache-dir pipenv && pipenv install --system --deploy';
  } else if (pyproject !== null || f.isFile('setup.py')) install = 'pip install --no-cache-dir .';

  const gunicorn = dep('gunicorn');
  let framework: string | null = null;
  let start: string | null = null;
  if (dep('django') || manage) {
    framework = 'django';
    const project = djangoProject(ctx);
    start = gunicorn && project ? `gunicorn ${project}.wsgi:application --bind 0.0.0.0:$PORT` : manage ? 'python manage.py runserver 0.0.0.0:$PORT --noreload' : null;
  } else if (dep('fastapi')) {
    framework = 'fastapi';
    const app = findApp(ctx, 'FastAPI');
    start = app ? `uvicorn ${app} --host 0.0.0.0 --port $PORT` : null;
  } else if (dep('flask')) {
    framework = 'flask';
    const app = findApp(ctx, 'Flask');
    start = app ? (gunicorn ? `gunicorn ${app} --bind 0.0.0.0:$PORT` : `flask --app ${app} run --host 0.0.0.0 --port $PORT`) : null;
  }
  if (start === null && entry !== null) start = `python ${entry}`;
  return {
    stack: 'python',
    framework,
    tool,
    installCommand: install,
    buildCommand: null,
    startCommand: start,
    staticOutput: null,
    defaultPort: 8000,
    buildImage: 'python',
    env: { PYTHONUNBUFFERED: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1' },
    runtime: { kind: 'same' },
  };
}

/** The Django project package: from manage.py's DJANGO_SETTINGS_MODULE, else the folder holding wsgi.py. */
function djangoProject(ctx: DetectContext): string | null {
  const m = /DJANGO_SETTINGS_MODULE['"]\s*,\s*['"]([A-Za-z0-9_]+)\.settings['"]/.exec(ctx.files.read('manage.py') ?? '');
  if (m) return m[1]!;
  const wsgi = ctx.files.find((n) => n === 'wsgi.py', '.', 1).find((p) => p.includes('/'));
  return wsgi ? wsgi.split('/')[0]! : null;
}

/** `module:variable` of the first `x = FastAPI(` / `x = Flask(` in the usual files. */
function findApp(ctx: DetectContext, cls: string): string | null {
  const candidates = ['main.py', 'app.py', 'server.py', 'api.py', 'wsgi.py', 'asgi.py', 'app/main.py', 'app/__init__.py', 'src/main.py', 'src/app.py'];
  for (const path of candidates) {
    const text = ctx.files.read(path);
    if (text === null) continue;
    const m = new RegExp(`^([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*${cls}\\(`, 'm').exec(text);
    if (m)
      return `${path
        .replace(/\/__init__\.py$/, '')
        .replace(/\.py$/, '')
        .replace(/\//g, '.')}:${m[1]}`;
  }
  return null;
}
