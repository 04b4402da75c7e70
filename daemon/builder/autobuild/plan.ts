// What the autobuild analyzer produces: a build plan (stack, framework, commands, port, static
// output, the images each stage starts from). dockerfile.ts turns a plan into a Dockerfile.
import type { RuntimeMode } from '../../../shared/types.js';
import type { BaseImageKey, BaseImages } from './base-images.js';

export type Stack = 'node' | 'python' | 'go' | 'ruby' | 'php' | 'java' | 'rust' | 'dotnet' | 'static';

export const STACK_NAMES: Record<Stack, string> = {
  node: 'Node.js',
  python: 'Python',
  go: 'Go',
  ruby: 'Ruby',
  php: 'PHP',
  java: 'Java',
  rust: 'Rust',
  dotnet: '.NET',
  static: 'static site',
};

/**
 * How the built app runs:
 * - `same`: in the build stage's image, with the whole built directory (interpreted stacks);
 * - `artifact`: in a smaller runtime image, with only the listed build outputs (compiled stacks);
 * - `static`: files from `staticOutput` served by a small static-file server (Caddy).
 */
type RuntimeShape = { kind: 'same' } | { kind: 'artifact'; image: BaseImageKey; copy: { from: string; to: string }[] } | { kind: 'static' };

/** What a stack detector finds, before the service's overrides and the configured images apply. */
export interface Detection {
  stack: Stack;
  framework: string | null;
  /** The package manager or build tool: npm, yarn, pnpm, pip, poetry, go, bundler, composer, maven, gradle, javac, cargo, dotnet, none. */
  tool: string;
  installCommand: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  /** For static sites: the folder (relative to the service root) that holds the site after the build. */
  staticOutput: string | null;
  /** Single-page app: unknown paths answer index.html. */
  spa?: boolean;
  defaultPort: number;
  /** The image the build runs in. */
  buildImage: BaseImageKey;
  /** Images whose files are copied into the build stage (e.g. composer's binary). */
  copyFromImages?: { image: BaseImageKey; from: string; to: string }[];
  /** Environment for the build and the app (never secrets: these are written into the Dockerfile). */
  env?: Record<string, string>;
  /** Shell steps that move build outputs to where `artifact` runtimes copy them from. */
  collect?: string[];
  runtime: RuntimeShape;
  /** Notes for the user, shown in the plan and the build log. */
  notes?: string[];
}

export interface Overrides {
  installCommand: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  staticOutput: string | null;
}

export interface AnalyzeInput {
  /** The service's directory (the checkout, or rootDir inside it). */
  root: string;
  /** The checkout's top directory, for monorepos: lockfiles may live above the service's directory. */
  repoRoot?: string;
  overrides: Overrides;
  runtimeMode: RuntimeMode;
  /** The service's internalPort (PORT is set to it); null for workers. */
  port: number | null;
  images: BaseImages;
}

export interface BuildPlan {
  stack: Stack;
  framework: string | null;
  tool: string;
  installCommand: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  /** The port the app listens on: PORT is set to it. Null for workers. */
  port: number | null;
  staticOutput: string | null;
  spa: boolean;
  buildImage: string;
  copyFromImages: { image: string; from: string; to: string }[];
  env: Record<string, string>;
  collect: string[];
  runtime: { kind: 'same' } | { kind: 'artifact'; image: string; copy: { from: string; to: string }[] } | { kind: 'static'; image: string };
  /** Every image the generated Dockerfile starts from or copies from, in order. */
  baseImages: string[];
  notes: string[];
}

/** The repository could not be placed; the message says what the analyzer looked for. */
export class AnalysisError extends Error {
  override readonly name = 'AnalysisError';
}
