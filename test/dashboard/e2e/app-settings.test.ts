// An app's page in headless Chromium, as an owner uses it (issue 26): the form offers the
// app's own region and plan even when they are no longer among the choices (a region taken
// out of DOCPARSE_REGIONS, a retired plan), so saving it unchanged changes nothing and
// changing one field changes that field only; an app without a plan is shown with the limits
// it really has, here and on the usage page.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../helpers/browser.js';
import { AuditStore } from '../../../src/tenancy/audit-store.js';
import { MembersStore } from '../../../src/tenancy/members-store.js';
import type { SqlControlPlaneStore } from '../../../src/tenancy/sql-store.js';
import type { App, Plan, Tenant } from '../../../src/tenancy/types.js';
import { createApp as newAppRecord } from '../../helpers/node.js';
import { planInput } from '../../tenancy/fixtures.js';
import { startDashboardRig, type DashboardRig } from '../pages/rig.js';
import { signedInBrowser, type SignedInBrowser } from './signed-in.js';

const OWNER = 'olga@settings.test';

let rig: DashboardRig;
let browser: Browser;
let owner: SignedInBrowser;
let tenant: Tenant;
let retired: Plan;
let legacyApp: App;
let freeApp: App;

const store = () => rig.node.node.controlPlane as SqlControlPlaneStore;
const appPage = (app: App) => `${rig.base}/dashboard/t/${tenant.id}/apps/${app.id}`;

beforeAll(async () => {
  rig = await startDashboardRig({ DOCPARSE_REGIONS: 'eu-central,us-east' });
  browser = await launchBrowser();
  // What years of use leave behind: an app in a region no longer offered, on a plan since retired.
  const made = await newAppRecord(rig.node.node, null);
  tenant = (await store().getTenant(made.tenantId))!;
  await new MembersStore(store().db).upsertMember({ tenantId: tenant.id, email: OWNER, role: 'owner' });
  retired = await store().createPlan(planInput({ name: 'Legacy 2023', maxDocumentUnitsPerMonth: 20_000 }));
  legacyApp = await store().createApp({ ...appFields('Old importer'), licenseRegion: 'ap-legacy', planId: retired.id });
  await store().retirePlan(retired.id);
  freeApp = await store().createApp({ ...appFields('Free tier'), licenseRegion: 'eu-central', planId: null });
  owner = await signedInBrowser(browser, rig, OWNER, `/dashboard/t/${tenant.id}/apps`);
}, 120_000);

afterAll(async () => {
  await owner?.context.close();
  await browser?.close();
  await rig?.close();
});

function appFields(name: string) {
  return { tenantId: tenant.id, name, dbCode: 'db-1', clientId: `c-${name.replace(/\W/g, '')}`, secretHash: 'unused', allowedDomains: ['app.settings.test'] };
}

const appUpdates = async (app: App) =>
  (await new AuditStore(store().db).list({ tenantIds: [tenant.id], limit: 100 })).entries.filter((e) => e.action === 'app.update' && e.objectId === app.id);

describe("an app's settings", { timeout: 120_000 }, () => {
  it('saved unchanged, an app keeps its region no longer offered and its retired plan: nothing is changed', async () => {
    const { page } = owner;
    await page.goto(appPage(legacyApp));
    const region = page.getByLabel('License region');
    const plan = page.getByLabel('Plan', { exact: true });
    expect(await region.inputValue()).toBe('ap-legacy');
    expect(await region.locator('option:checked').textContent()).toBe('ap-legacy (no longer offered)');
    expect(await plan.inputValue()).toBe(retired.id);
    expect(await plan.locator('option:checked').textContent()).toBe('Legacy 2023 — 20,000 units a month (retired: no tokens until another plan is chosen)');

    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/done=unchanged$/);
    expect(await page.getByRole('status').filter({ hasText: 'Nothing to save' }).count()).toBe(1);
    expect(await store().getApp(legacyApp.id)).toMatchObject({ licenseRegion: 'ap-legacy', planId: retired.id, allowedDomains: ['app.settings.test'] });
    expect(await appUpdates(legacyApp)).toEqual([]);
  });

  it('changing one setting changes that one only: the region and the retired plan stay', async () => {
    const { page } = owner;
    await page.goto(appPage(legacyApp));
    await page.getByLabel('Name', { exact: true }).fill('Old importer (2023)');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/done=saved$/);
    expect(await store().getApp(legacyApp.id)).toMatchObject({ name: 'Old importer (2023)', licenseRegion: 'ap-legacy', planId: retired.id });
    const [update] = await appUpdates(legacyApp);
    expect(Object.keys(update.diff ?? {})).toEqual(['name']);
  });

  it('an app without a plan is shown with the limits it really has (the no-plan limits), on its page and in the usage quotas', async () => {
    const { page } = owner;
    await page.goto(appPage(freeApp));
    expect(await page.locator('#app-limits').textContent()).toBe(
      '1,000 Document Units a month, files up to 50 MiB, 4 unfinished jobs at a time, uploads at up to 10 MiB/s, no OCR or advanced PDF extraction (the limits of every app without a plan)',
    );
    expect(await page.getByLabel('Plan', { exact: true }).locator('option:checked').textContent()).toBe(
      'No plan — 1,000 units a month, the limits of every app without a plan',
    );
    expect(await page.content()).not.toContain('unlimited');

    await page.getByRole('navigation', { name: tenant.name }).getByRole('link', { name: 'Usage and billing' }).click();
    const row = page.locator('#quota-table tbody tr').filter({ hasText: 'Free tier' });
    expect(await row.locator('td').allTextContents()).toEqual(['Free tier', 'none', '1,000 (no plan)', '0', '1,000']);
  });
});
