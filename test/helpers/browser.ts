// Debian's Chromium driven by playwright-core, for the console tests and the console benchmark:
// launching it headless, screenshots under .berth-test/screenshots/, and an axe-core check.
import { AxeBuilder } from '@axe-core/playwright';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from './repo-root.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = join(REPO_ROOT, '.berth-test', 'screenshots');

export async function launchChromium(): Promise<Browser> {
  const setup = spawnSync('bash', [join(REPO_ROOT, 'test/setup/chromium.sh')], { encoding: 'utf8' });
  if (setup.status !== 0) throw new Error(`chromium setup failed:\n${setup.stderr}`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** The console is built (installers/build-console.sh skips the build when nothing changed). */
export function requireConsoleBuild(): void {
  const res = spawnSync('bash', [join(REPO_ROOT, 'installers/build-console.sh')], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`building the console failed:\n${res.stderr}\n${res.stdout}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Serious and critical accessibility violations on the page as it is now, as readable lines. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')})`,
    );
}

/**
 * A new browser context signed in to the console at `url` with `token` (a light 1280-wide window),
 * its page errors collected in `pageErrors` under `name`; `contexts` gets the context to close.
 */
export async function signedInPage(
  browser: Browser,
  opts: { url: string; token: string; name: string; pageErrors: string[]; contexts: BrowserContext[]; height?: number; acceptDownloads?: boolean },
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: opts.height ?? 860 }, colorScheme: 'light', ...(opts.acceptDownloads ? { acceptDownloads: true } : {}) });
  opts.contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => opts.pageErrors.push(`${opts.name}: ${e.message}`));
  await page.goto(opts.url);
  await page.getByLabel('API key', { exact: true }).fill(opts.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
  return page;
}

/** Screenshots of each open page when the test that just ran failed (for an afterEach hook): `<prefix>-failed-<page>-<test title>`. */
export async function screenshotsOnFailure(test: Mocha.Test | undefined, prefix: string, pages: Record<string, Page | undefined>): Promise<void> {
  if (test?.state !== 'failed') return;
  const title = test.title.slice(0, 40).replace(/\W+/g, '-');
  for (const [name, page] of Object.entries(pages)) if (page) await screenshot(page, `${prefix}-failed-${name}-${title}`).catch(() => undefined);
}
