// A browser profile signed in to the dashboard as a person does it: a dashboard page sends it
// to the OpenID provider's own sign-in page, where the e-mail address is typed and Continue
// pressed, and back.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { collectPageErrors, newContext } from '../../helpers/browser.js';
import type { DashboardRig } from '../pages/rig.js';

export interface SignedInBrowser {
  context: BrowserContext;
  page: Page;
  /** Console errors and CSP violations of the dashboard's pages since sign-in. */
  errors: string[];
}

export async function signedInBrowser(
  browser: Browser,
  rig: DashboardRig,
  email: string,
  start: string,
  opts: { phone?: boolean } = {},
): Promise<SignedInBrowser> {
  const context = await newContext(browser, rig.base, opts);
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await page.goto(`${rig.base}${start}`);
  await page.waitForURL((u) => u.origin === rig.provider.issuer);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((u) => u.origin === rig.base);
  expect(await page.getByRole('button', { name: 'Sign out', exact: true }).isVisible()).toBe(true);
  // What the provider's own pages reported (its missing favicon) is not the dashboard's.
  errors.length = 0;
  return { context, page, errors };
}
