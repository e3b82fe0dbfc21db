// Headless Chromium for the dashboard tests: Debian's /usr/bin/chromium driven by
// playwright-core (no browser is ever downloaded), axe-core injected from node_modules, and
// screenshots saved as test artifacts under test-artifacts/dashboard/.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.DOCPARSE_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS_DIR = path.resolve(new URL('../..', import.meta.url).pathname, 'test-artifacts/dashboard');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A fresh browser profile (its own cookies), with clipboard access for the copy buttons. */
export async function newContext(browser: Browser, origin: string, opts: { phone?: boolean } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: opts.phone ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    ...(opts.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  return context;
}

/** Console errors and CSP violations a page reported, so a test can assert there were none. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, which the page's
 * Content-Security-Policy does not govern: an inline script tag would be refused) and
 * returns the serious and critical violations.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const result = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  })) as { violations: AxeViolation[] };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html })) }));
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
