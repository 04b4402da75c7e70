// The build context handed to the Engine: the service's directory as a tar stream (tar spawned
// with an argv array). With an extra CA bundle configured (BERTH_BUILD_CA_FILE), the bundle is
// added to the context and the Dockerfile gets it after every FROM, so RUN steps that fetch over
// HTTPS trust it; it is exposed through ARGs, which do not persist into the final image.
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export const CA_IN_CONTEXT = '.berth-build-ca.pem';
export const CA_IN_IMAGE = '/usr/local/share/ca-certificates/berth-build-ca.crt';
const GENERATED_DOCKERFILE = '.berth.Dockerfile';

const CA_ARGS = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'PIP_CERT', 'GIT_SSL_CAINFO', 'npm_config_cafile'];

/** Inserts the CA after each FROM line of a Dockerfile. */
export function withBuildCa(dockerfile: string): string {
  const inject = [`COPY ${CA_IN_CONTEXT} ${CA_IN_IMAGE}`, ...CA_ARGS.map((name) => `ARG ${name}=${CA_IN_IMAGE}`)];
  return dockerfile
    .split('\n')
    .flatMap((line) => (/^\s*FROM\s/i.test(line) ? [line, ...inject] : [line]))
    .join('\n');
}

/** Prepares the context dir and returns the Dockerfile path (relative to it) to build with. */
export function prepareContext(root: string, dockerfile: string, caFile: string | null): string {
  if (!caFile) return dockerfile;
  copyFileSync(caFile, join(root, CA_IN_CONTEXT));
  writeFileSync(join(root, GENERATED_DOCKERFILE), withBuildCa(readFileSync(join(root, dockerfile), 'utf8')));
  return GENERATED_DOCKERFILE;
}

export function tarContext(root: string): Readable {
  const tar = spawn('tar', ['-C', root, '--exclude=./.git', '-c', '.'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return tar.stdout;
}
