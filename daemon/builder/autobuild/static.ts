// A plain static site: an index.html at the top of the service's directory, served as it is.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

export function detectStatic(ctx: DetectContext): Detection | null {
  return ctx.files.isFile('index.html') ? staticSite() : null;
}

/** The service's directory served as it is (also used when staticOutput or runtimeMode static says so). */
export function staticSite(): Detection {
  return {
    stack: 'static',
    framework: null,
    tool: 'none',
    installCommand: null,
    buildCommand: null,
    startCommand: null,
    staticOutput: '.',
    defaultPort: 80,
    buildImage: 'static',
    runtime: { kind: 'static' },
  };
}
