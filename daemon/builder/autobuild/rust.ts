// Rust: Cargo.toml. The release binary (the [[bin]] name, else the package name) runs from a small
// runtime image; Rocket gets its address and port from the environment.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

const FRAMEWORKS = ['actix-web', 'axum', 'rocket', 'warp', 'poem', 'tide'];

export function detectRust(ctx: DetectContext): Detection | null {
  const cargo = ctx.files.read('Cargo.toml');
  if (cargo === null) return null;
  const bin = /\[\[bin\]\][^[]*?name\s*=\s*"([^"]+)"/.exec(cargo)?.[1] ?? /\[package\][^[]*?name\s*=\s*"([^"]+)"/.exec(cargo)?.[1] ?? null;
  const framework = FRAMEWORKS.find((name) => new RegExp(`^\\s*${name}\\s*=`, 'm').test(cargo)) ?? null;
  const env: Record<string, string> = framework === 'rocket' ? { ROCKET_ADDRESS: '0.0.0.0' } : {};
  return {
    stack: 'rust',
    framework,
    tool: 'cargo',
    installCommand: null,
    buildCommand: 'cargo build --release',
    startCommand: bin ? (framework === 'rocket' ? 'ROCKET_PORT=$PORT /app/server' : '/app/server') : null,
    staticOutput: null,
    defaultPort: 8080,
    buildImage: 'rust',
    env,
    collect: bin ? [`cp target/release/${bin} /app/server`] : [],
    runtime: { kind: 'artifact', image: 'runtime', copy: [{ from: '/app/server', to: '/app/server' }] },
  };
}
