// The dashboard end to end in headless Chromium (issue 20): a user signs in, creates an
// organisation (Pending Activation), an operator activates it, the activation e-mail arrives
// at a local SMTP server, the user creates an app and copies its secret with the copy button,
// the secret gets a token that parses a CSV through the API, and the units appear in the usage
// chart's data table and in the statement. Every page is checked with axe-core and saved as
// a screenshot in test-artifacts/dashboard/.
//
// Every way in is used as a person uses it (issue 26): the OpenID provider's own sign-in page;
// on `docparse serve` with nothing configured, the one-time link it prints at its terminal
// (opened, its button pressed) and an operator key printed by `docparse admin keys
// create-operator` (typed into the sign-in form, Enter). The browser sends what it sends —
// Origin, Sec-Fetch-Site — never a hand-made request. Needs the compiled CLI (`npm run build`).
import fs from 'node:fs/promises';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/http.js';
import { waitFor } from '../../helpers/node.js';
import { collectPageErrors, launchBrowser, newContext, screenshot, seriousAxeViolations } from '../../helpers/browser.js';
import { createSmtpSink, type SmtpSink } from '../../mail/smtp-sink.js';
import { createOperatorKey, hasScript, printedSignInLink, serve, stopServed, type ServedNode } from '../auth/serve.js';
import { startDashboardRig, type DashboardRig } from '../pages/rig.js';
import { signedInBrowser } from './signed-in.js';

const OPERATOR = 'ops@docparse.test';
const OWNER = 'alice@acme.test';

let rig: DashboardRig;
let sink: SmtpSink;
let browser: Browser;
let base: string;

beforeAll(async () => {
  sink = await createSmtpSink();
  await sink.start();
  rig = await startDashboardRig({ DOCPARSE_SMTP_URL: sink.url, DOCPARSE_OPERATOR_EMAILS: OPERATOR });
  base = rig.base;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await rig?.close();
  await sink?.stop();
});

/** A browser profile signed in as this user through the OpenID provider's pages, from a dashboard page. */
const signedIn = (email: string, start: string, opts: { phone?: boolean } = {}) => signedInBrowser(browser, rig, email, start, opts);

/** The page is the dashboard's, signed in as a platform operator called `name`, and the session says so. */
async function expectSignedInOperator(page: Page, name: string): Promise<void> {
  expect(await page.getByRole('banner').getByText(`${name} (operator)`, { exact: true }).isVisible()).toBe(true);
  expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'All tenants (operator)' }).isVisible()).toBe(true);
  const session = await page.request.get(new URL('/dashboard/auth/session', page.url()).toString());
  expect(await session.json()).toMatchObject({ name, operator: true });
}

/**
 * Every table on the page is in a keyboard-focusable, named region that scrolls sideways when
 * the table is wider than it: with the region focused, the arrow keys scroll it; a shadow
 * marks the edge with more table beyond it; scrolled to the end, the last column is whole.
 * Returns how many tables were wider than their region.
 */
async function tablesScroll(page: Page): Promise<number> {
  const regions = page.locator('.table-wrap');
  let wide = 0;
  for (let i = 0; i < (await regions.count()); i++) {
    const region = regions.nth(i);
    expect(await region.getAttribute('role')).toBe('region');
    expect(await region.getAttribute('tabindex')).toBe('0');
    expect(await region.getAttribute('aria-label')).toBeTruthy();
    if (await region.evaluate((el) => el.scrollWidth <= el.clientWidth)) continue;
    wide++;
    const name = await region.getAttribute('aria-label');
    expect(await shadedEdges(page, region), `edges of "${name}" at its start`).toEqual({ left: false, right: true });
    await region.focus();
    await region.press('ArrowRight');
    await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    await region.evaluate((el) => el.scrollTo({ left: el.scrollWidth, behavior: 'instant' }));
    const lastColumnWhole = () =>
      region.evaluate((el) => {
        const cells = el.querySelectorAll('thead th');
        return cells[cells.length - 1].getBoundingClientRect().right <= el.getBoundingClientRect().right + 0.5;
      });
    await expect.poll(lastColumnWhole).toBe(true);
    expect(await shadedEdges(page, region), `edges of "${name}" at its end`).toEqual({ left: true, right: false });
    await region.evaluate((el) => el.scrollTo({ left: 0, behavior: 'instant' }));
  }
  return wide;
}

/**
 * Whether each side edge of a table's region is shaded: every pixel a few pixels in from that
 * edge, beside the middle of the table's body rows, darker than the white paper (text and
 * rules only darken; a plain edge has white between them).
 */
async function shadedEdges(page: Page, region: Locator): Promise<{ left: boolean; right: boolean }> {
  const band = await region.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const body = el.querySelector('tbody')!.getBoundingClientRect();
    return { from: (body.top - box.top + body.height * 0.25) / box.height, to: (body.top - box.top + body.height * 0.75) / box.height };
  });
  const png = (await region.screenshot()).toString('base64');
  return page.evaluate(
    async ({ png, band }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${png}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const brightestAt = (x: number) => {
        const column = ctx.getImageData(x, Math.round(band.from * img.height), 1, Math.max(1, Math.round((band.to - band.from) * img.height))).data;
        let brightest = 0;
        for (let i = 0; i < column.length; i += 4) brightest = Math.max(brightest, Math.min(column[i], column[i + 1], column[i + 2]));
        return brightest;
      };
      const inset = Math.round(3 * window.devicePixelRatio);
      return { left: brightestAt(inset) < 250, right: brightestAt(img.width - 1 - inset) < 250 };
    },
    { png, band },
  );
}

/** Elements that stick out of the window, or out of a box that clips without scrolling: what a reader could not reach. */
async function cutOff(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const width = document.documentElement.clientWidth;
    for (const el of document.querySelectorAll('body *')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      let clip: Element | null = el.parentElement;
      while (clip && getComputedStyle(clip).overflowX === 'visible') clip = clip.parentElement;
      const scrolls = clip !== null && ['auto', 'scroll'].includes(getComputedStyle(clip).overflowX);
      if (scrolls) continue;
      const edge = clip && clip !== document.documentElement && clip !== document.body ? clip.getBoundingClientRect().right : width;
      if (box.right > edge + 0.5)
        found.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}" ends at ${Math.round(box.right)} px of ${Math.round(edge)}`);
    }
    return found;
  });
}

/** axe-core finds nothing serious or critical, the page reported no error (a CSP violation is one), and it is saved. */
async function checkPage(page: Page, errors: string[], name: string): Promise<void> {
  expect(await seriousAxeViolations(page), `axe on ${name}`).toEqual([]);
  expect(errors, `console errors on ${name}`).toEqual([]);
  await screenshot(page, name);
}

describe('the dashboard, end to end', { timeout: 300_000 }, () => {
  it('sign in → organisation → activation e-mail → app and secret → parse → usage and statement', async () => {
    // A new user signs in and lands on onboarding: no organisation yet.
    const owner = await signedIn(OWNER, '/dashboard/');
    const { page } = owner;
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/onboarding`);
    await checkPage(page, owner.errors, 'onboarding');
    await page.getByLabel('Organisation name').fill('Acme Analytics');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.waitForURL(/\/dashboard\/t\/[^/]+\?done=created$/);
    const tenantPath = new URL(page.url()).pathname;
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Pending activation' }).count()).toBe(1);
    expect(await page.getByText('What happens next').textContent()).toContain('owners get an e-mail');
    await checkPage(page, owner.errors, 'overview-pending');

    // An operator (DOCPARSE_OPERATOR_EMAILS) signs in, sees it first in the tenant list and activates it.
    const op = await signedIn(OPERATOR, '/dashboard/operator/tenants');
    expect(op.page.url()).toBe(`${base}/dashboard/operator/tenants`);
    const row = op.page.getByRole('row').filter({ hasText: 'Acme Analytics' });
    expect(await row.getByText('Pending Activation').count()).toBe(1);
    await checkPage(op.page, op.errors, 'operator-tenants');
    await row.getByRole('button', { name: 'Activate Acme Analytics', exact: true }).click();
    await op.page.waitForURL(/done=activate/);
    // The page says who the activation e-mail goes to (the owner), as the outbox has it.
    expect(await op.page.getByRole('status').filter({ hasText: 'Acme Analytics is active' }).textContent()).toMatch(
      /Its activation e-mail to alice@acme\.test (is on its way|has been sent)\./,
    );
    expect(await op.page.getByRole('row').filter({ hasText: 'Acme Analytics' }).getByText('Active', { exact: true }).count()).toBe(1);

    // The activation e-mail reaches the owner.
    const mail = await waitFor(async () => sink.received.find((m) => m.envelopeTo.includes(OWNER)), 'the activation e-mail');
    expect(mail.parsed.subject).toContain('Acme Analytics');
    expect(mail.parsed.subject).toContain('is active');

    // The operator defines a plan.
    await op.page.goto(`${base}/dashboard/plans`);
    await op.page.getByLabel('Name').fill('Starter');
    await op.page.getByLabel('Document Units a month').fill('5000');
    await op.page.getByRole('button', { name: 'Create plan' }).click();
    await op.page.waitForURL(/done=created/);
    await checkPage(op.page, op.errors, 'plans-operator');

    // The owner creates an app: the secret is shown once, with a copy button.
    await page.goto(`${base}${tenantPath}`);
    await checkPage(page, owner.errors, 'overview-active');
    await page.getByRole('navigation', { name: 'Acme Analytics' }).getByRole('link', { name: 'Apps' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Importer');
    await page.getByLabel('Allowed domains').fill('importer.acme.test');
    await page.getByLabel('Plan').selectOption({ label: 'Starter — 5,000 units a month' });
    await checkPage(page, owner.errors, 'apps');
    await page.getByRole('button', { name: 'Create app' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('App “Importer” created');
    const clientId = (await page.locator('#client-id').textContent())!.trim();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Copied to the clipboard.');
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toBe((await page.locator('#client-secret').textContent())!.trim());
    await checkPage(page, owner.errors, 'app-secret');
    await page.getByRole('link', { name: 'I have stored it: go to the app' }).click();
    const appUrl = page.url();
    // Never again: the app's page does not hold it.
    expect(await page.content()).not.toContain(secret);
    await checkPage(page, owner.errors, 'app');

    // An operator gives the app its database code (until then it gets no tokens).
    await op.page.goto(appUrl);
    await op.page.getByLabel('Database code (operators)').fill('db-acme-1');
    await op.page.getByRole('button', { name: 'Save settings' }).click();
    await op.page.waitForURL(/done=saved/);

    // The copied secret gets a token, and the token parses a CSV through the API.
    const tokenRes = await fetch(`${base}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: clientId, client_secret: secret }),
    });
    expect(tokenRes.status).toBe(200);
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const upload = await fetch(`${base}/api/v1/documents/upload?fileName=orders.csv&csvRoute=Tabular`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: 'order,amount\n1,10\n2,20\n3,30\n',
    });
    expect(upload.status).toBe(202);
    const { documentId } = (await upload.json()) as { documentId: string };
    const done = await waitFor(async () => {
      const s = (await (await fetch(`${base}/api/v1/documents/${documentId}/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        statusInt: number;
        documentUnits: number;
      };
      return s.statusInt === 8 || s.statusInt === 9 ? s : null;
    }, 'the CSV to be parsed');
    expect(done.statusInt).toBe(8);
    expect(done.documentUnits).toBeGreaterThan(0);

    // The units are in the usage chart's data table, in the chart, and in the statement.
    await page.getByRole('link', { name: 'Usage and billing' }).click();
    const today = new Date().toISOString().slice(0, 10);
    const chartRow = page.locator('#usage-table tbody tr').filter({ hasText: 'Importer' });
    expect(await chartRow.locator('td').allTextContents()).toEqual([today, 'Importer', 'csv', String(done.documentUnits), '1']);
    await expect.poll(() => page.locator('#usage-chart').isVisible()).toBe(true);
    expect(await page.locator('#statement-total').textContent()).toBe(String(done.documentUnits));
    const quota = page.locator('#quota-table tbody tr').filter({ hasText: 'Importer' });
    expect(await quota.locator('td').allTextContents()).toEqual([
      'Importer',
      'Starter',
      '5,000',
      String(done.documentUnits),
      (5000 - done.documentUnits).toLocaleString('en-US'),
    ]);
    await checkPage(page, owner.errors, 'usage');
    const csv = await page.request.get(
      await page
        .getByRole('link', { name: /^Statement for .* \(CSV\)$/ })
        .getAttribute('href')
        .then((h) => `${base}${h}`),
    );
    expect(csv.headers()['content-type']).toContain('text/csv');
    expect(await csv.text()).toContain('Importer');

    // The other pages, each checked and saved.
    for (const [link, name] of [
      ['Members', 'members'],
      ['Storage', 'storage'],
      ['Audit log', 'audit'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Acme Analytics' }).getByRole('link', { name: link }).click();
      await checkPage(page, owner.errors, name);
    }
    expect(await page.locator('#audit-table').textContent()).toContain('app.create');
    await page.goto(`${base}/dashboard/`);
    await checkPage(page, owner.errors, 'organisations');
    await page.goto(`${base}/dashboard/plans`);
    await checkPage(page, owner.errors, 'plans');

    // A phone-sized window: the navigation wraps instead of being cut off; wide tables scroll
    // sideways in their own box, and nothing on the page is out of reach.
    const phone = await signedIn(OWNER, `${tenantPath}/usage`, { phone: true });
    const small = phone.page;
    const nav = small.getByRole('navigation', { name: 'Acme Analytics' });
    for (const link of ['Overview', 'Apps', 'Members', 'Storage', 'Usage and billing', 'Audit log'])
      expect(await nav.getByRole('link', { name: link }).isVisible()).toBe(true);
    expect(await small.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await tablesScroll(small)).toBeGreaterThan(0);
    expect(await cutOff(small)).toEqual([]);
    await checkPage(small, phone.errors, 'phone-usage');
    await small.goto(`${base}${tenantPath}/apps`);
    expect(await tablesScroll(small)).toBeGreaterThan(0);
    expect(await cutOff(small)).toEqual([]);
    await checkPage(small, phone.errors, 'phone-apps');
    await phone.context.close();

    // Signing out ends the session: with the browser's cookies, a page now sends it to sign in.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/auth/signed-out`);
    const after = await page.request.get(`${base}${tenantPath}`, { maxRedirects: 0 });
    expect(after.status()).toBe(303);
    expect(after.headers().location).toBe(`/dashboard/auth/login?next=${encodeURIComponent(tenantPath)}`);
    await owner.context.close();
    await op.context.close();
  });
});

describe.skipIf(!hasScript)("the local operator's ways in on `docparse serve` with nothing configured", { timeout: 180_000 }, () => {
  let dataDir: string;
  let node: ServedNode;

  beforeAll(async () => {
    dataDir = await tempDir('dp-journey-');
    node = await serve(dataDir, { terminal: true });
  }, 120_000);
  afterAll(async () => {
    await stopServed();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('the one-time link printed at the terminal: opened, its button pressed, the browser is signed in as the local operator', async () => {
    const context = await newContext(browser, node.url);
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(await printedSignInLink(node));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in as the local operator');
    await checkPage(page, errors, 'sign-in-link');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${node.url}/dashboard/`);
    await expectSignedInOperator(page, 'Local operator');
    await checkPage(page, errors, 'local-operator-home');
    await context.close();
  });

  it('an operator key printed by `docparse admin keys create-operator`: typed into the sign-in form, Enter, signed in where the browser was going', async () => {
    const key = await createOperatorKey(dataDir, 'first operator');
    const context = await newContext(browser, node.url);
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${node.url}/dashboard/plans`);
    await page.waitForURL(`${node.url}/dashboard/auth/login?next=${encodeURIComponent('/dashboard/plans')}`);
    await checkPage(page, errors, 'sign-in-operator-key');
    const field = page.getByLabel('Operator key');
    await field.pressSequentially(key);
    await field.press('Enter');
    await page.waitForURL(`${node.url}/dashboard/plans`);
    await expectSignedInOperator(page, 'Operator key "first operator"');
    await context.close();
  });
});
