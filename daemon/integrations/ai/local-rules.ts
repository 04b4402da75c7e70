// The built-in explanations: rules over the failed deployment's log for the common causes, written
// against what Berth, Docker's classic builder, npm and V8 really print. The first rule that finds
// its evidence answers; each quotes the line it found.
import type { Explanation } from '../../../shared/types.js';
import type { ExplainPrompt } from '../../core/ports/explain-provider.js';

export interface Evidence {
  prompt: ExplainPrompt;
  build: string[];
  runtime: string[];
  /** Build lines, then the container's. */
  all: string[];
}

export type Rule = (e: Evidence) => Explanation | null;

/** The first line matching `re`, searching from the end (the newest evidence wins). */
function lastMatch(lines: string[], re: RegExp): { line: string; match: RegExpExecArray } | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = re.exec(lines[i]!);
    if (match) return { line: lines[i]!.trim(), match };
  }
  return null;
}

/** The newest line matching the first of `patterns` that matches any line. */
function firstOf(lines: string[], patterns: readonly RegExp[]): { line: string; match: RegExpExecArray } | null {
  for (const re of patterns) {
    const hit = lastMatch(lines, re);
    if (hit) return hit;
  }
  return null;
}

function quote(line: string): string {
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

/** The command of the build step that failed, from Docker's "The command '...' returned a non-zero code: N". */
function failedStep(e: Evidence): { command: string; code: number } | null {
  const hit = lastMatch(e.build, /The command '(?:\/bin\/sh -c )?(.+)' returned a non-zero code: (\d+)/);
  return hit ? { command: hit.match[1]!, code: Number(hit.match[2]) } : null;
}

function apiCall(method: string, path: string, body: object): string {
  return `curl -X ${method} -H "Authorization: Bearer $BERTH_KEY" -H 'Content-Type: application/json' -d '${JSON.stringify(body)}' "$BERTH_URL${path}"`;
}

const missingDockerfile: Rule = (e) => {
  const explicit = lastMatch(e.all, /buildMethod is dockerfile, but there is no Dockerfile at (.+?) \(from (.+?)\)/);
  const auto = explicit ? null : lastMatch(e.all, /no Dockerfile to build, and the autobuild analyzer is not available yet/);
  const engine = explicit || auto ? null : lastMatch(e.all, /Cannot locate specified Dockerfile: (\S+)|failed to read dockerfile/i);
  const hit = explicit ?? auto ?? engine;
  if (!hit) return null;
  const path = explicit?.match[1] ?? engine?.match[1] ?? 'Dockerfile';
  return {
    summary: `The deployment failed before building: there is no Dockerfile at ${path} in the service's directory of the repository.`,
    likelyCause: explicit
      ? `Missing Dockerfile: the service's build method is "dockerfile", but ${path} (${explicit.match[2]}) does not exist in the checked-out branch. The log says: "${quote(hit.line)}"`
      : `Missing Dockerfile: the repository has no Dockerfile where Berth looks for one, and automatic builds are not available on this server. The log says: "${quote(hit.line)}"`,
    suggestedFix:
      'Commit a Dockerfile to the deployed branch at that path (relative to rootDir), or point dockerfilePath (or the <SERVICE>_DOCKERFILE_PATH variable) at the Dockerfile the repository has. Check that rootDir and the branch are the ones you mean.',
    commands: ['git ls-files | grep -i dockerfile', 'git add Dockerfile && git commit -m "Add Dockerfile" && git push'],
  };
};

const missingScript: Rule = (e) => {
  const hit = lastMatch(e.all, /(?:npm (?:ERR!|error)|ERR_PNPM_NO_SCRIPT)\s+Missing script:\s*"?([^"\s]+)"?/) ?? lastMatch(e.all, /error Command "([^"]+)" not found/);
  if (!hit) return null;
  const script = hit.match[1]!;
  const inBuild = e.build.some((l) => l.includes(hit.match[0]));
  const where = inBuild ? `a build step (${failedStep(e)?.command ?? `npm run ${script}`})` : "the container's start command";
  const example = script === 'start' ? 'node server.js' : script === 'build' ? 'tsc' : '<command>';
  return {
    summary: `${where[0]!.toUpperCase()}${where.slice(1)} runs the "${script}" script, but package.json has no such script.`,
    likelyCause: `Missing ${script} script: package.json does not define scripts.${script}, and ${where} runs it. The log says: "${quote(hit.line)}"`,
    suggestedFix: `Add a "${script}" script to package.json (for example "${script}": "${example}"), or change the Dockerfile to run the command directly instead of the script.`,
    commands: [`npm pkg set scripts.${script}="${example}"`, 'npm run', 'git commit -am "Add the ' + script + ' script" && git push'],
  };
};

const OOM = [
  /JavaScript heap out of memory/,
  /Reached heap limit/,
  /FATAL ERROR: .*Allocation failed/,
  /java\.lang\.OutOfMemoryError/,
  /fatal error: runtime: out of memory/,
  /\bMemoryError\b/,
  /Cannot allocate memory|\bENOMEM\b/,
  /\bOOMKilled\b/,
  /returned a non-zero code: 137\b/,
  /^\s*Killed\s*$/,
];

const outOfMemory: Rule = (e) => {
  const hit = firstOf(e.all, OOM);
  if (!hit) return null;
  const heapLimit = lastMatch(e.all, /--max-old-space-size[= ](\d+)/);
  const inBuild = e.build.some((l) => l.trim() === hit.line);
  const step = inBuild ? failedStep(e) : null;
  return {
    summary: `${inBuild ? `The build step ${step ? `"${step.command}" ` : ''}` : 'The app '}ran out of memory and was stopped.`,
    likelyCause:
      `Out of memory: the process needed more memory than it was allowed` +
      (heapLimit ? ` (Node's heap is limited to ${heapLimit.match[1]} MB by --max-old-space-size)` : ' (the server has too little free memory, or a heap limit is too low)') +
      `. The log says: "${quote(hit.line)}"`,
    suggestedFix:
      'Give the process more memory: raise or remove the heap limit (for Node, NODE_OPTIONS=--max-old-space-size=<MB> within what the server has), free memory on the server or add swap, or reduce what the step holds in memory at once.',
    commands: ['free -m', 'docker stats --no-stream', 'export NODE_OPTIONS=--max-old-space-size=2048'],
  };
};

const NPM_CODES: Record<string, string> = {
  ENOTCACHED: 'npm ran offline and the package is not in its cache',
  E404: 'a package (or version) does not exist in the registry, or is private and needs a token',
  ETARGET: 'no published version matches the requested range',
  ERESOLVE: 'the dependency tree has conflicting peer dependencies',
  EINTEGRITY: "a downloaded package does not match the lockfile's checksum",
  E401: 'the registry refused the credentials',
  E403: 'the registry refused access to a package',
  ENOTFOUND: 'the registry host could not be resolved from the build',
  EAI_AGAIN: 'the registry host could not be resolved from the build',
  ECONNREFUSED: 'the registry refused the connection',
  ETIMEDOUT: 'the registry did not answer in time',
  ECONNRESET: 'the connection to the registry was reset',
  ENOENT: 'a file the install needs (a file: dependency, a tarball) does not exist',
  EUSAGE: 'the install command was used wrongly (npm ci needs a package-lock.json in sync with package.json)',
};
const INSTALL_COMMAND = /\b(?:npm (?:install|ci|i)\b|yarn(?: install)?\b|pnpm (?:install|i)\b|pip3? install|poetry install|bundle install|composer install|go mod download)/;

/** The line after npm's "code" line that says what happened (not syscall/path/errno bookkeeping). */
function npmReason(lines: string[], codeLine: string): string | null {
  const start = lines.findIndex((l) => l.trim() === codeLine);
  for (const l of lines.slice(start + 1)) {
    const m = /^\s*npm (?:ERR!|error) (.*)$/.exec(l);
    if (!m) break;
    if (m[1]!.trim() !== '' && !/^(?:code|syscall|path|errno|A complete log)\b/.test(m[1]!)) return l.trim();
  }
  return null;
}

const dependencyInstall: Rule = (e) => {
  const step = failedStep(e);
  const npmCode = lastMatch(e.all, /npm (?:ERR!|error) code (E[A-Z0-9_]+)/);
  const other =
    lastMatch(e.all, /Could not find a version that satisfies the requirement (\S+)|No matching distribution found for (\S+)/) ??
    lastMatch(e.all, /ERR_PNPM_[A-Z0-9_]+|error Couldn't find package "([^"]+)"|error An unexpected error occurred: (.+)/);
  const installStep = step !== null && INSTALL_COMMAND.test(step.command);
  if (!installStep && !(npmCode && npmCode.match[1]! in NPM_CODES && npmCode.match[1] !== 'ENOENT') && !other) return null;
  const code = npmCode?.match[1];
  const pkg =
    lastMatch(e.all, /request to https?:\/\/\S+?\/(@[^/\s]+\/[^/\s]+|[^/\s]+) failed/)?.match[1] ??
    lastMatch(e.all, /404 Not Found - GET https?:\/\/\S+?\/(@[^/\s]+\/[^/\s]+|[^/\s]+)\b/)?.match[1] ??
    lastMatch(e.all, /No matching version found for (\S+)\./)?.match[1] ??
    other?.match.slice(1).find((x) => x !== undefined);
  const detail = (npmCode ? npmReason(e.all, npmCode.line) : null) ?? npmCode?.line ?? other?.line ?? step?.command ?? '';
  const reason = code ? (NPM_CODES[code] ?? `npm failed with ${code}`) : 'the package manager could not install the dependencies';
  return {
    summary: `Installing the dependencies failed${step ? ` in the build step "${step.command}"` : ''}${pkg ? `: ${pkg} could not be installed` : ''}.`,
    likelyCause: `Dependency install failure: ${reason}${code ? ` (${code})` : ''}. The log says: "${quote(detail)}"`,
    suggestedFix:
      code === 'ENOTCACHED'
        ? 'Let the install reach the registry (drop --offline, or fill the npm cache in an earlier step), or vendor the dependency. Check that package.json and package-lock.json name packages that exist.'
        : 'Reproduce the install locally from a clean checkout, fix the package name, version or lockfile it complains about, commit the lockfile, and deploy again. A private package needs registry credentials in the build.',
    commands: ['rm -rf node_modules && npm ci', ...(pkg ? [`npm view ${pkg} versions`] : []), 'git add package.json package-lock.json && git commit -m "Fix dependencies" && git push'],
  };
};

// Variable names are matched in capitals only, so ordinary words after "missing env" are not taken for one.
const ENV_PATTERNS = [
  /[Ee]nvironment variables? "?([A-Z_][A-Z0-9_]*)"? (?:is|are) (?:required|not set|missing|undefined|not defined|empty)/,
  /Environment variable not found: ([A-Z_][A-Z0-9_]*)/,
  /[Mm]issing (?:required )?[Ee]nv(?:ironment)?(?: [Vv]ar(?:iable)?s?)?:?\s+"?([A-Z_][A-Z0-9_]*)\b/,
  /[Ee]nv(?:ironment)? [Vv]ar(?:iable)? "?([A-Z_][A-Z0-9_]*)"? (?:is )?(?:not set|missing|required|undefined|not defined)/,
  /\b([A-Z][A-Z0-9_]*_[A-Z0-9_]+|[A-Z]{3,}) (?:is not set|is required|is missing|must be set|is undefined|is not defined)/,
  /KeyError: '([A-Z_][A-Z0-9_]*)'/,
];

const missingEnv: Rule = (e) => {
  const hit = firstOf([...e.build, ...e.runtime], ENV_PATTERNS);
  if (!hit) return null;
  const name = hit.match[1]!;
  const isSet = e.prompt.envKeys.includes(name);
  const inBuild = !e.runtime.some((l) => l.trim() === hit.line);
  return {
    summary: `The ${inBuild ? 'build' : 'app'} stopped because the environment variable ${name} is missing.`,
    likelyCause: isSet
      ? `Missing environment variable: ${name} is set on the service, but the ${inBuild ? 'build does not see it (variables reach the container at run time, not the image build)' : 'app did not get a usable value (is it empty, or a ${...} reference to the wrong variable?)'}. The log says: "${quote(hit.line)}"`
      : `Missing environment variable: ${name} is not set on the service, and the ${inBuild ? 'build' : 'app'} requires it. The log says: "${quote(hit.line)}"`,
    suggestedFix: isSet
      ? `Check the value of ${name} on the service (a reference such as \${db.DATABASE_URL} must name an existing service and variable)${inBuild ? ', and do not read it during the image build: read it when the app starts' : ''}, then deploy again.`
      : `Set ${name} on the service (a value, or a reference such as \${db.DATABASE_URL} to another service of the project), then deploy again.`,
    commands: [apiCall('POST', `/api/services/${e.prompt.service.id}/env`, { key: name, value: '<value>' }), apiCall('POST', `/api/services/${e.prompt.service.id}/deployments`, {})],
  };
};

/** Ports the app says (or its Dockerfile says) it uses. */
function claimedPorts(e: Evidence): { port: number; line: string }[] {
  const found: { port: number; line: string }[] = [];
  const add = (re: RegExp, lines: string[]) => {
    for (const line of lines) {
      const m = re.exec(line);
      if (m) found.push({ port: Number(m[1] ?? m[2]), line: line.trim() });
    }
  };
  add(/^Step \d+\/\d+ : EXPOSE (\d{2,5})\b/, e.build);
  add(/^Step \d+\/\d+ : (?:CMD|ENTRYPOINT)\b.*?(?:--port|-p|--bind|-b|PORT=)[\s"',=]+(?:[\w.]*:)?(\d{2,5})\b/, e.build);
  add(/\b(?:listening|listens|running|started|serving|server (?:is )?(?:up|ready))\b.*?(?:port\s*:?\s*(\d{2,5})\b|(?:localhost|0\.0\.0\.0|127\.0\.0\.1|\[::\]|\*):(\d{2,5})\b)/i, e.runtime);
  return found.filter((p) => p.port > 0 && p.port <= 65535);
}

const portMismatch: Rule = (e) => {
  const hit = lastMatch(e.build, /never answered on port (\d+)/);
  if (!hit) return null;
  const expected = Number(hit.match[1]);
  const other = claimedPorts(e).find((p) => p.port !== expected);
  const loopbackOnly = lastMatch(e.runtime, /\b(?:localhost|127\.0\.0\.1):(\d{2,5})\b/);
  return {
    summary: `The container started, but nothing answered on port ${expected} before the health check gave up, so the deployment failed.`,
    likelyCause:
      `Port mismatch: Berth expects the app on port ${expected} (its internalPort, also given to the app as $PORT), but the app never answered there` +
      (other
        ? `; it listens on port ${other.port} ("${quote(other.line)}")`
        : loopbackOnly
          ? `; it listens on ${loopbackOnly.match[0]}, which is not reachable from outside the container`
          : '; it listens on another port, only on 127.0.0.1, or takes too long to start') +
      `. The log says: "${quote(hit.line)}"`,
    suggestedFix: other
      ? `Make the app listen on $PORT (${expected}), or set the service's internalPort to ${other.port}.`
      : `Make the app listen on 0.0.0.0:$PORT (${expected}), or set the service's internalPort to the port it does listen on.`,
    commands: other
      ? [apiCall('PATCH', `/api/services/${e.prompt.service.id}`, { internalPort: other.port })]
      : [`grep -rnE "listen|PORT" --include=*.js --include=*.ts --include=*.py --include=Dockerfile .`],
  };
};

const cloneFailure: Rule = (e) => {
  const hit = lastMatch(e.build, /Deployment failed: ((?:git clone failed|repository not found or access denied|git clone was killed).*)/);
  if (!hit) return null;
  const denied = /not found or access denied|Authentication failed|could not read Username/i.test(hit.line);
  const branch = /Remote branch (\S+) not found/.exec(hit.line);
  return {
    summary: 'Berth could not clone the repository, so nothing was built.',
    likelyCause: branch
      ? `Branch not found: the repository has no branch ${branch[1]}. The log says: "${quote(hit.line)}"`
      : denied
        ? `Repository access denied: the repository does not exist or needs an access token Berth does not have. The log says: "${quote(hit.line)}"`
        : `Clone failure: the git server could not be reached or refused the clone. The log says: "${quote(hit.line)}"`,
    suggestedFix: 'Check the repository name or URL and the branch; for a private repository store an access token on the service (githubToken). Check that this server can reach the git host.',
    commands: ['git ls-remote <repository URL>'],
  };
};

const crashAtStart: Rule = (e) => {
  const hit = lastMatch(e.build, /container exited (?:before answering on port \d+|right after starting)/);
  if (!hit) return null;
  const last = [...e.runtime].reverse().find((l) => l.trim() !== '');
  return {
    summary: 'The app started and exited again before it was ready.',
    likelyCause: `App crashed at start: ${last ? `its last output was "${quote(last.trim())}"` : 'it wrote no output'}. The log says: "${quote(hit.line)}"`,
    suggestedFix: "Run the image locally with the same environment variables and read why it exits; check the container's start command.",
    commands: ['docker run --rm -e PORT=<internalPort> <image>'],
  };
};

const failedBuildStep: Rule = (e) => {
  const step = failedStep(e);
  if (!step) return null;
  const lines = e.build.filter((l) => l.trim() !== '' && !/^(?:Removing intermediate container|Deployment failed:|The command ')/.test(l.trim()));
  const last = lines.at(-1)?.trim();
  return {
    summary: `The build step "${step.command}" failed with exit code ${step.code}.`,
    likelyCause: `Build step failed: "${step.command}" exited with code ${step.code}${last ? `; its last output was "${quote(last)}"` : ''}.`,
    suggestedFix: 'Run the same command locally in a clean checkout (or build the Dockerfile locally) and fix the error it prints.',
    commands: ['docker build .'],
  };
};

const unknown: Rule = (e) => {
  const reason = lastMatch(e.build, /Deployment failed: (.*)/);
  return {
    summary: reason ? `The deployment failed: ${quote(reason.match[1]!)}` : 'The deployment failed, and its log does not say why.',
    likelyCause: `Unknown cause: none of the built-in rules recognise this failure.${reason ? ` The log's last word was: "${quote(reason.line)}"` : ''}`,
    suggestedFix: 'Read the full deployment log and the runtime log; an AI provider may find more in them.',
    commands: [],
  };
};

/** Most specific first: a port that never answered is often the symptom of a missing variable. */
export const RULES: readonly Rule[] = [missingDockerfile, missingScript, outOfMemory, dependencyInstall, missingEnv, cloneFailure, portMismatch, crashAtStart, failedBuildStep, unknown];
