// Fixture repositories that really fail, one per common cause, for the built-in failure
// explanations. Everything runs from the local test images: npm never reaches a registry.

export interface FailingApp {
  /** Repository files (see GitServer.commit). */
  files: Record<string, string>;
  /** Service fields beyond name and repository. */
  service: Record<string, unknown>;
}

const nodeImage = (lines: string[]) => ['FROM berth-test/node:latest', 'WORKDIR /app', ...lines, ''].join('\n');

/** buildMethod dockerfile on a repository without one. */
export const missingDockerfile: FailingApp = {
  files: { 'README.md': 'no Dockerfile here\n', 'index.html': 'hello\n' },
  service: { buildMethod: 'dockerfile', internalPort: 8080 },
};

/** busybox httpd on a fixed port 9999, while the service expects 8080. */
export const portMismatch: FailingApp = {
  files: {
    Dockerfile: 'FROM berth-test/busybox:latest\nCOPY www /www\nCMD ["httpd", "-f", "-p", "9999", "-h", "/www"]\n',
    'www/index.html': 'wrong port\n',
  },
  service: { internalPort: 8080 },
};

/** A build step whose V8 heap is capped at 16 MB and that keeps allocating. */
export const outOfMemory: FailingApp = {
  files: { Dockerfile: nodeImage(['RUN node --max-old-space-size=16 -e "const a=[]; for(;;) a.push(new Array(1e6).fill(1))"']) },
  service: { internalPort: 8080 },
};

/** `npm start` in a project whose package.json has no start script. */
export const missingStartScript: FailingApp = {
  files: {
    Dockerfile: nodeImage(['COPY package.json .', 'RUN npm start']),
    'package.json': JSON.stringify({ name: 'no-start', version: '1.0.0', scripts: { build: 'echo built' } }, null, 2) + '\n',
  },
  service: { internalPort: 8080 },
};

/** `npm install --offline` of a registry package that is not in the (empty) cache: npm never goes online. */
export const dependencyNotInstallable: FailingApp = {
  files: {
    Dockerfile: nodeImage(['COPY package.json .', 'RUN npm install --offline --no-audit --no-fund']),
    'package.json': JSON.stringify({ name: 'deps', version: '1.0.0', dependencies: { 'left-pad': '1.3.0' } }, null, 2) + '\n',
  },
  service: { internalPort: 8080 },
};

/** A `file:` dependency on a tarball that is not in the repository. */
export const dependencyFileMissing: FailingApp = {
  files: {
    Dockerfile: nodeImage(['COPY package.json .', 'RUN npm install --offline --no-audit --no-fund']),
    'package.json': JSON.stringify({ name: 'deps-file', version: '1.0.0', dependencies: { x: 'file:./vendor/x-1.0.0.tgz' } }, null, 2) + '\n',
  },
  service: { internalPort: 8080 },
};

/**
 * An app that exits at start because DATABASE_URL is not set. The variable's name is assembled at
 * run time, so it appears only in the container's output, never in the Dockerfile's build lines.
 */
export const missingEnvVar: FailingApp = {
  files: {
    Dockerfile: 'FROM berth-test/busybox:latest\nCMD ["sh", "-c", "v=DATABASE; echo \\"Error: environment variable ${v}_URL is required\\" >&2; exit 1"]\n',
  },
  service: { internalPort: 8080 },
};
