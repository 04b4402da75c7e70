// The clients of outside HTTP APIs (AI providers, DNS providers) send credentials with every
// request and fetch with `redirect: 'manual'`: a redirect answer is refused, naming only where it
// pointed (its host), so the credentials never reach a host the operator did not configure.

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/** The refusal's message: the status and the target's host, never its path or query. */
export function redirectRefusal(where: string, res: Response, scrub: (text: string) => string): string {
  let target = 'elsewhere';
  try {
    const location = res.headers.get('location');
    if (location) target = `to ${new URL(location, res.url || undefined).host}`;
  } catch {
    // not a URL: left unnamed
  }
  return scrub(`${where} answered with a redirect (HTTP ${res.status}) ${target}; Berth does not follow redirects with credentials: set the base URL to the address the provider really answers at`);
}
