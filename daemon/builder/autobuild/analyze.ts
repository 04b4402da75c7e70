// The autobuild analyzer: reads the service's directory (nothing else; no network, no Docker) and
// returns a build plan, with the service's install/build/start commands and static output laid
// over what was detected. Stacks are tried in a fixed order, most specific markers first: a
// Laravel or Django app also has a package.json for its assets, so PHP and Python come before
// Node; loose files (a lone main.py, *.java, index.html) count only when nothing else matched.
import { posix } from 'node:path';
import type { BaseImageKey } from './base-images.js';
import { detectContext, type DetectContext } from './context.js';
import { detectDotnet } from './dotnet.js';
import { detectGo } from './go.js';
import { detectJava, detectJavaSources } from './java.js';
import { detectNode } from './node.js';
import { detectPhp } from './php.js';
import { AnalysisError, STACK_NAMES, type AnalyzeInput, type BuildPlan, type Detection, type Stack } from './plan.js';
import { detectPython } from './python.js';
import { detectRuby } from './ruby.js';
import { detectRust } from './rust.js';
import { detectStatic, staticSite } from './static.js';

const DETECTORS: { lookedFor: string; detect: (ctx: DetectContext) => Detection | null }[] = [
  { lookedFor: 'composer.json or index.php (PHP)', detect: detectPhp },
  { lookedFor: 'go.mod (Go)', detect: detectGo },
  { lookedFor: 'pom.xml or build.gradle (Java)', detect: detectJava },
  { lookedFor: 'Cargo.toml (Rust)', detect: detectRust },
  { lookedFor: 'Gemfile (Ruby)', detect: detectRuby },
  { lookedFor: 'requirements.txt, pyproject.toml, Pipfile, setup.py or manage.py (Python)', detect: (ctx) => detectPython(ctx, false) },
  { lookedFor: 'a *.csproj or *.fsproj (.NET)', detect: detectDotnet },
  { lookedFor: 'package.json (Node.js)', detect: detectNode },
  { lookedFor: 'main.py, app.py or server.py (Python)', detect: (ctx) => detectPython(ctx, true) },
  { lookedFor: '*.java sources (Java)', detect: detectJavaSources },
  { lookedFor: 'index.html (static site)', detect: detectStatic },
];

const START_HINTS: Record<Stack, string> = {
  node: 'a "start" script in package.json, a "main" file, or server.js / index.js / app.js / main.js',
  python: 'a Django manage.py, a FastAPI or Flask app object in main.py / app.py, or main.py / app.py / server.py',
  go: 'a main package in the directory or under cmd/',
  ruby: 'config.ru, a Rails app, or app.rb / main.rb / server.rb',
  php: 'index.php or public/index.php',
  java: 'a class with public static void main',
  rust: 'a package or [[bin]] name in Cargo.toml',
  dotnet: 'a project file',
  static: 'index.html',
};

export function analyze(input: AnalyzeInput): BuildPlan {
  const ctx = detectContext(input.root, input.repoRoot);
  let detection: Detection | null = null;
  for (const d of DETECTORS) {
    detection = d.detect(ctx);
    if (detection) break;
  }
  const o = input.overrides;
  if (!detection) {
    if (o.staticOutput !== null || input.runtimeMode === 'static') detection = staticSite();
    else {
      throw new AnalysisError(
        `autobuild could not tell what kind of project this is: it looked for ${DETECTORS.map((d) => d.lookedFor).join(', ')} in the service's directory and found none; add a Dockerfile, or set rootDir to the app's folder`,
      );
    }
  }
  return applyOverrides(detection, input);
}

function applyOverrides(d: Detection, input: AnalyzeInput): BuildPlan {
  const o = input.overrides;
  const notes = [...(d.notes ?? [])];
  const installCommand = o.installCommand ?? d.installCommand;
  const buildCommand = o.buildCommand ?? d.buildCommand;
  const isStatic = input.runtimeMode === 'static' || o.staticOutput !== null || (d.runtime.kind === 'static' && o.startCommand === null);
  const img = (key: BaseImageKey) => input.images[key];
  const copyFromImages = (d.copyFromImages ?? []).map((c) => ({ ...c, image: img(c.image) }));
  const buildImage = img(d.buildImage);
  const worker = input.runtimeMode === 'worker';

  let startCommand: string | null = null;
  let staticOutput: string | null = null;
  let runtime: BuildPlan['runtime'];
  if (isStatic) {
    staticOutput = checkOutput(o.staticOutput ?? d.staticOutput ?? (buildCommand ? 'dist' : '.'));
    runtime = { kind: 'static', image: img('static') };
    if (o.startCommand !== null) notes.push('startCommand is ignored: the site is served as static files');
  } else {
    startCommand = o.startCommand ?? d.startCommand;
    if (startCommand === null) {
      const what = d.framework ? `${STACK_NAMES[d.stack]} (${d.framework})` : STACK_NAMES[d.stack];
      throw new AnalysisError(`autobuild found a ${what} project but not how to start it: it looked for ${START_HINTS[d.stack]}; set the service's startCommand`);
    }
    runtime = d.runtime.kind === 'artifact' ? { kind: 'artifact', image: img(d.runtime.image), copy: d.runtime.copy } : { kind: 'same' };
  }
  const port = worker ? null : (input.port ?? (isStatic ? 80 : d.defaultPort));
  const baseImages = [
    ...new Set([...copyFromImages.map((c) => c.image), ...(usesBuildStage(d, isStatic, installCommand, buildCommand) ? [buildImage] : []), ...(runtime.kind === 'same' ? [] : [runtime.image])]),
  ];
  return {
    stack: d.stack,
    framework: d.framework,
    tool: d.tool,
    installCommand,
    buildCommand,
    startCommand,
    port,
    staticOutput,
    spa: isStatic && (d.spa ?? false),
    buildImage,
    copyFromImages,
    env: d.env ?? {},
    collect: d.collect ?? [],
    runtime,
    baseImages,
    notes,
  };
}

/** A plain static site with nothing to install or build is copied straight into the server's image. */
function usesBuildStage(d: { stack: Stack }, isStatic: boolean, install: string | null, build: string | null): boolean {
  return !(isStatic && d.stack === 'static' && install === null && build === null);
}

function checkOutput(path: string): string {
  const norm = posix.normalize(path.trim()).replace(/\/+$/, '') || '.';
  if (norm.startsWith('/') || norm === '..' || norm.startsWith('../') || /[\0\n\r]/.test(norm)) {
    throw new AnalysisError(`staticOutput "${path}" must be a folder inside the service's directory`);
  }
  return norm;
}
