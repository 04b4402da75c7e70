// The build context handed to the Engine: the service's directory as a tar stream (tar spawned
// with an argv array, links stored as links, never followed). The Dockerfile the Engine builds is
// always Berth's own copy (.berth.Dockerfile): the chosen or generated Dockerfile with, after
// every FROM, one LABEL instruction holding Berth's ownership labels (the image owner, which proves
// the built image Berth's, and the build label that lets Berth find and remove what a failed build
// left, never an id read from the build's output), and, with an extra CA bundle configured
// (BERTH_BUILD_CA_FILE), the bundle, so RUN steps that fetch over HTTPS trust it; it is exposed
// through ARGs, which do not persist into the final image.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Labels } from '../docker/labels.js';
import { CA_IN_CONTEXT, GENERATED_DOCKERFILE, writeBuildFile } from './build-files.js';

const CA_IN_IMAGE = '/usr/local/share/ca-certificates/berth-build-ca.crt';

const CA_ARGS = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'PIP_CERT', 'GIT_SSL_CAINFO', 'npm_config_cafile'];

/** Inserts `lines` after each FROM instruction (after its continuation lines, when it has any). */
export function afterEachFrom(dockerfile: string, lines: readonly string[]): string {
  const out: string[] = [];
  let inFrom = false;
  for (const line of dockerfile.split('\n')) {
    out.push(line);
    if (!inFrom && /^\s*FROM\s/i.test(line)) inFrom = true;
    if (inFrom && !/\\\s*$/.test(line)) {
      out.push(...lines);
      inFrom = false;
    }
  }
  return out.join('\n');
}

/** Inserts the CA after each FROM line of a Dockerfile. */
function withBuildCa(dockerfile: string): string {
  return afterEachFrom(dockerfile, [`COPY ${CA_IN_CONTEXT} ${CA_IN_IMAGE}`, ...CA_ARGS.map((name) => `ARG ${name}=${CA_IN_IMAGE}`)]);
}

export interface ContextOptions {
  /** BERTH_BUILD_CA_FILE, or null. */
  caFile: string | null;
  /** The labels every layer of the build carries (Ownership.layerLabels): ids only. */
  labels: Labels;
  log: (line: string) => void;
}

/**
 * Prepares the context dir and returns the Dockerfile path (relative to it) to build with.
 * `dockerfile` is already known to be a file inside `root` (dockerfile-choice.ts, or Berth's own).
 */
export function prepareContext(root: string, dockerfile: string, opts: ContextOptions): string {
  let text = readFileSync(join(root, dockerfile), 'utf8');
  if (opts.caFile) {
    writeBuildFile(root, CA_IN_CONTEXT, readFileSync(opts.caFile), opts.log);
    text = withBuildCa(text);
  }
  // last, so it lands right after each FROM: every layer the stage commits carries the labels.
  // One instruction for all of them (the classic builder commits one step per instruction, and per
  // label passed through its API), the same for every deployment of the service, so it is cached.
  text = afterEachFrom(text, [labelInstruction(opts.labels)]);
  writeBuildFile(root, GENERATED_DOCKERFILE, text, opts.log);
  return GENERATED_DOCKERFILE;
}

/** `LABEL k1="v1" k2="v2"`; keys and values are Berth's own names and ids, nothing to escape or expand. */
function labelInstruction(labels: Labels): string {
  const pairs = Object.entries(labels).map(([key, value]) => {
    if (!/^[a-z0-9.-]+$/.test(key) || !/^[A-Za-z0-9._/-]+$/.test(value)) throw new Error(`label ${key}=${value} is not a plain name and id`);
    return `${key}="${value}"`;
  });
  return `LABEL ${pairs.join(' ')}`;
}

export function tarContext(root: string): Readable {
  const tar = spawn('tar', ['-C', root, '--exclude=./.git', '-c', '.'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return tar.stdout;
}
