// The storage page in headless Chromium, as an owner uses it (issue 29): choosing a provider
// fills the endpoint template, region, addressing and checksum mode from its preset (and
// shows the account id field for R2 only); a read-only key is refused by the live check with
// the failed step and nothing is saved; MinIO on a real S3-compatible server is checked and
// saved with the settings the form showed.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, seriousAxeViolations } from '../../helpers/browser.js';
import { startS3, type TestS3 } from '../../helpers/s3.js';
import { MembersStore } from '../../../src/tenancy/members-store.js';
import type { SqlControlPlaneStore } from '../../../src/tenancy/sql-store.js';
import { createApp as newAppRecord } from '../../helpers/node.js';
import { startDashboardRig, type DashboardRig } from '../pages/rig.js';
import { signedInBrowser, type SignedInBrowser } from './signed-in.js';

const OWNER = 'sasha@storage.test';

let rig: DashboardRig;
let s3: TestS3;
let browser: Browser;
let owner: SignedInBrowser;
let tenantId: string;

const store = () => rig.node.node.controlPlane as SqlControlPlaneStore;

beforeAll(async () => {
  s3 = await startS3('presets-bucket');
  // The tenant's storage is s3rver on loopback.
  rig = await startDashboardRig({ DOCPARSE_OUTBOUND_ALLOW: '127.0.0.0/8' });
  browser = await launchBrowser();
  tenantId = (await newAppRecord(rig.node.node, null)).tenantId;
  await new MembersStore(store().db).upsertMember({ tenantId, email: OWNER, role: 'owner' });
  owner = await signedInBrowser(browser, rig, OWNER, `/dashboard/t/${tenantId}/storage`);
}, 120_000);

afterAll(async () => {
  await owner?.context.close();
  await browser?.close();
  await rig?.close();
  await s3?.close();
});

describe('the storage page’s presets', { timeout: 120_000 }, () => {
  it('a provider fills endpoint, region, path style and checksums; the account id field is there for R2 only', async () => {
    const { page } = owner;
    await page.goto(`${rig.base}/dashboard/t/${tenantId}/storage`);
    const provider = page.getByLabel('Provider', { exact: true });
    const endpoint = page.getByLabel('Endpoint', { exact: true });
    const region = page.getByLabel('Region', { exact: true });
    const pathStyle = page.getByLabel('Path-style addressing (bucket in the path)');
    const checksums = page.getByLabel('Request checksums');
    const accountId = page.getByLabel('Account id');
    // A new form is Amazon S3's.
    expect(await provider.inputValue()).toBe('s3');
    expect(await endpoint.inputValue()).toBe('https://s3.{region}.amazonaws.com');
    expect(await checksums.inputValue()).toBe('when_supported');
    expect(await accountId.isVisible()).toBe(false);

    await provider.selectOption({ label: 'Cloudflare R2' });
    expect(await endpoint.inputValue()).toBe('https://{accountId}.r2.cloudflarestorage.com');
    expect(await region.inputValue()).toBe('auto');
    expect(await region.getAttribute('readonly')).not.toBeNull();
    expect(await pathStyle.isChecked()).toBe(true);
    expect(await checksums.inputValue()).toBe('when_required');
    expect(await accountId.isVisible()).toBe(true);
    expect(await page.locator('#preset-hint').textContent()).toContain('Cloudflare account id');

    await provider.selectOption({ label: 'Backblaze B2' });
    expect(await endpoint.inputValue()).toBe('https://s3.{region}.backblazeb2.com');
    expect(await region.inputValue()).toBe('us-west-004');
    expect(await region.getAttribute('readonly')).toBeNull();
    expect(await pathStyle.isChecked()).toBe(false);
    expect(await accountId.isVisible()).toBe(false);

    await provider.selectOption({ label: 'DigitalOcean Spaces' });
    expect(await endpoint.inputValue()).toBe('https://{region}.digitaloceanspaces.com');
    expect(await region.inputValue()).toBe('nyc3');

    await provider.selectOption({ label: 'MinIO' });
    expect(await endpoint.inputValue()).toBe('');
    expect(await region.inputValue()).toBe('us-east-1');
    expect(await pathStyle.isChecked()).toBe(true);
    // With the R2 account id field shown: no serious accessibility problem, no console error.
    await provider.selectOption({ label: 'Cloudflare R2' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(owner.errors).toEqual([]);
  });

  it('a read-only key is refused by the check, naming the step; the right key is checked and saved with the preset’s settings', async () => {
    const { page } = owner;
    await page.goto(`${rig.base}/dashboard/t/${tenantId}/storage`);
    await page.getByLabel('Provider', { exact: true }).selectOption({ label: 'MinIO' });
    await page.getByLabel('Endpoint', { exact: true }).fill(s3.endpoint);
    await page.getByLabel('Bucket', { exact: true }).fill(s3.bucket);
    await page.getByLabel('Access key id').fill(s3.readOnlyAccessKeyId);
    await page.getByLabel('Secret access key').fill(s3.readOnlySecretAccessKey);
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#f-bucket-error').textContent()).toBe(
      `Bucket "${s3.bucket}" could not be written to with these credentials: permission denied; nothing was saved.`,
    );
    expect(await page.getByLabel('Provider', { exact: true }).inputValue()).toBe('minio');
    expect(await page.getByLabel('Endpoint', { exact: true }).inputValue()).toBe(s3.endpoint);
    expect(
      await store()
        .db.query('SELECT id FROM storage_configs WHERE tenant_id = $1', [tenantId])
        .then((r) => r.rows),
    ).toEqual([]);
    // The refused form comes back 422, which Chromium reports; nothing else went wrong.
    expect(owner.errors).toEqual(['Failed to load resource: the server responded with a status of 422 (Unprocessable Content)']);
    owner.errors.length = 0;

    await page.getByLabel('Access key id').fill(s3.accessKeyId);
    await page.getByLabel('Secret access key').fill(s3.secretAccessKey);
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page.waitForURL(/done=created$/);
    expect(await page.getByRole('status').filter({ hasText: 'Storage checked and saved' }).count()).toBe(1);
    const row = page.locator('table tbody tr').filter({ hasText: s3.bucket });
    expect(await row.locator('td').first().textContent()).toBe('MinIO');
    const { rows } = await store().db.query<{ provider: string; endpoint: string; region: string; force_path_style: boolean; checksums: string }>(
      'SELECT provider, endpoint, region, force_path_style, checksums FROM storage_configs WHERE tenant_id = $1',
      [tenantId],
    );
    expect(rows).toEqual([{ provider: 'minio', endpoint: s3.endpoint, region: 'us-east-1', force_path_style: true, checksums: 'when_required' }]);
    expect(owner.errors).toEqual([]);
  });
});
