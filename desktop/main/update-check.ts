// "Update available": electron-builder publishes latest*.yml beside the installers (see
// desktop/electron-builder.yml, provider generic). The app reads the version there and offers a
// link to the download page; it never installs anything by itself.

/** The `version:` line of an electron-builder latest*.yml. */
function latestVersion(yml: string): string | null {
  const m = /^version:\s*['"]?([0-9]+\.[0-9]+\.[0-9]+[^'"\s]*)['"]?\s*$/m.exec(yml);
  return m ? m[1]! : null;
}

function isNewer(candidate: string, current: string): boolean {
  const parse = (v: string) =>
    v
      .split(/[.+-]/)
      .slice(0, 3)
      .map((n) => Number.parseInt(n, 10) || 0);
  const [a, b] = [parse(candidate), parse(current)];
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! > b[i]!;
  return false;
}

function latestFileFor(platform: NodeJS.Platform): string {
  return platform === 'darwin' ? 'latest-mac.yml' : platform === 'win32' ? 'latest.yml' : 'latest-linux.yml';
}

export async function checkForUpdate(feedUrl: string, current: string, platform: NodeJS.Platform, fetchFn: typeof fetch = fetch): Promise<{ version: string; url: string } | null> {
  const res = await fetchFn(`${feedUrl.replace(/\/+$/, '')}/${latestFileFor(platform)}`);
  if (!res.ok) return null;
  const version = latestVersion(await res.text());
  return version && isNewer(version, current) ? { version, url: feedUrl } : null;
}
