// .NET: a *.csproj (or *.fsproj) at the top or one level down. `dotnet publish` output runs on the
// ASP.NET runtime image, listening on $PORT through ASPNETCORE_URLS.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

export function detectDotnet(ctx: DetectContext): Detection | null {
  const f = ctx.files;
  const projects = f.find((n) => n.endsWith('.csproj') || n.endsWith('.fsproj'), '.', 1).filter((p) => !/test/i.test(p));
  if (projects.length === 0) return null;
  const project = projects.find((p) => !p.includes('/')) ?? projects[0]!;
  const text = f.read(project) ?? '';
  const assembly =
    /<AssemblyName>([^<]+)<\/AssemblyName>/.exec(text)?.[1] ??
    project
      .split('/')
      .pop()!
      .replace(/\.(cs|fs)proj$/, '');
  const web = /Sdk="Microsoft\.NET\.Sdk\.Web"/.test(text);
  return {
    stack: 'dotnet',
    framework: web ? 'aspnet-core' : null,
    tool: 'dotnet',
    installCommand: `dotnet restore "${project}"`,
    buildCommand: `dotnet publish "${project}" -c Release -o /app/.berth/publish`,
    startCommand: `ASPNETCORE_URLS=http://0.0.0.0:$PORT dotnet /app/.berth/publish/${assembly}.dll`,
    staticOutput: null,
    defaultPort: 8080,
    buildImage: 'dotnet',
    env: { DOTNET_CLI_TELEMETRY_OPTOUT: '1' },
    runtime: { kind: 'artifact', image: 'dotnetRuntime', copy: [{ from: '/app/.berth/publish', to: '/app/.berth/publish' }] },
  };
}
