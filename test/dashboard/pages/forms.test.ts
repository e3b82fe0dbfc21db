// The dashboard's forms against a real node and the real services behind them: storage is
// saved only after the live bucket check (a real S3-compatible server), with the reason beside
// the bucket when it fails and the credentials never shown back; invitations; a rotated secret
// is shown once and the old one stops working; a plan the API refuses keeps its field errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type TestS3 } from '../../helpers/s3.js';
import { freePort } from '../../helpers/servers.js';
import type { Tenant } from '../../../src/tenancy/types.js';
import { signIn, startDashboardRig, type DashboardRig, type SignedInClient } from './rig.js';

let rig: DashboardRig;
let s3: TestS3;
let owner: SignedInClient;
let operator: SignedInClient;
let tenant: Tenant;
const D = '/dashboard';

const get = (s: SignedInClient, path: string) => fetch(rig.base + path, { redirect: 'manual', headers: { cookie: s.cookie } });
const post = (s: SignedInClient, path: string, form: Record<string, string>) =>
  fetch(rig.base + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
async function csrf(s: SignedInClient): Promise<string> {
  return /name="_csrf" value="([^"]+)"/.exec(await (await get(s, `${D}/plans`)).text())![1];
}
const store = () => rig.node.node.controlPlane;

beforeAll(async () => {
  s3 = await startS3('tenant-bucket');
  // The tenant's storage is s3rver on loopback.
  rig = await startDashboardRig({ DOCPARSE_OPERATOR_EMAILS: 'root@ops.test', DOCPARSE_OUTBOUND_ALLOW: '127.0.0.0/8' });
  owner = await signIn(rig, 'owner@forms.test');
  operator = await signIn(rig, 'root@ops.test');
  expect((await post(owner, `${D}/onboarding`, { _csrf: await csrf(owner), name: 'Forms Ltd' })).status).toBe(303);
  tenant = (await store().listTenants()).find((t) => t.name === 'Forms Ltd')!;
}, 120_000);

afterAll(async () => {
  await rig?.close();
  await s3?.close();
});

describe('storage', () => {
  it('a bucket that cannot be reached is not saved: the reason is beside the bucket, the credentials are not repeated', async () => {
    const closed = await freePort();
    const res = await post(owner, `${D}/t/${tenant.id}/storage`, {
      _csrf: await csrf(owner),
      provider: 'minio',
      endpoint: `http://127.0.0.1:${closed}`,
      region: 'us-east-1',
      bucket: 'nowhere',
      accessKeyId: 'AKIAUNREACHABLE',
      secretAccessKey: 'very-secret-value-123',
      forcePathStyle: 'true',
    });
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toMatch(
      /<p class="error" id="f-bucket-error">Bucket &quot;nowhere&quot; could not be reached with these credentials[^<]*nothing was saved\.<\/p>/,
    );
    expect(html).toContain('value="nowhere"');
    expect(html).not.toContain('very-secret-value-123');
    expect(html).not.toContain('AKIAUNREACHABLE');
    expect(await (await get(owner, `${D}/t/${tenant.id}/storage`)).text()).toContain('No storage of your own yet.');
  });

  it('a reachable bucket is checked and saved; the list never shows the credentials', async () => {
    const res = await post(owner, `${D}/t/${tenant.id}/storage`, {
      _csrf: await csrf(owner),
      provider: 'other-s3',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: s3.bucket,
      prefix: 'docs',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: 'true',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${D}/t/${tenant.id}/storage?done=created`);
    const page = await (await get(owner, res.headers.get('location')!)).text();
    expect(page).toContain('Storage checked and saved');
    expect(page).toContain(`${s3.bucket}/<wbr>docs`);
    expect(page).toContain('••••RVER');
    expect(page).not.toContain(s3.secretAccessKey); // 'S3RVER': neither the secret nor the whole key id
    // An app's settings offer it, without the credentials either.
    const app = await post(owner, `${D}/t/${tenant.id}/apps`, { _csrf: await csrf(owner), name: 'Stored', licenseRegion: rig.node.node.config.regions[0] });
    const appId = (await store().listApps(tenant.id)).find((a) => a.name === 'Stored')!.id;
    expect(app.status).toBe(200);
    const settings = await (await get(owner, `${D}/t/${tenant.id}/apps/${appId}`)).text();
    expect(settings).toContain(`custom: ${s3.bucket}/docs`); // other-s3, custom's earlier name, is saved as custom
    expect(settings).not.toContain('S3RVER');
  });
});

describe('members', () => {
  it('an owner invites by e-mail; the invitation is listed and can be revoked', async () => {
    const res = await post(owner, `${D}/t/${tenant.id}/members/invite`, { _csrf: await csrf(owner), email: 'new.person@forms.test', role: 'member' });
    expect(res.status).toBe(303);
    const page = await (await get(owner, res.headers.get('location')!)).text();
    expect(page).toContain('Invitation sent');
    expect(page).toMatch(/<td>new\.person@forms\.test<\/td><td>member<\/td>/);
    const again = await post(owner, `${D}/t/${tenant.id}/members/invite`, { _csrf: await csrf(owner), email: 'new.person@forms.test', role: 'member' });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('already has an open invitation');
    const invitationId = /name="invitationId" value="([^"]+)"/.exec(page)![1];
    expect((await post(owner, `${D}/t/${tenant.id}/members/revoke`, { _csrf: await csrf(owner), invitationId })).status).toBe(303);
    expect(await (await get(owner, `${D}/t/${tenant.id}/members`)).text()).not.toContain('new.person@forms.test');
  });

  it('a malformed address is refused beside the e-mail field', async () => {
    const res = await post(owner, `${D}/t/${tenant.id}/members/invite`, { _csrf: await csrf(owner), email: 'not-an-address', role: 'member' });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/<p class="error" id="f-email-error">[^<]+<\/p>/);
  });
});

describe('apps', () => {
  it('rotating the secret shows the new one once; the old one no longer gets a token', async () => {
    const made = await post(owner, `${D}/t/${tenant.id}/apps`, { _csrf: await csrf(owner), name: 'Rotated', licenseRegion: rig.node.node.config.regions[0] });
    const first = await made.text();
    const secretOf = (html: string) => /<code id="client-secret">([^<]+)<\/code>/.exec(html)![1];
    const clientId = /<code id="client-id">([^<]+)<\/code>/.exec(first)![1];
    const oldSecret = secretOf(first);
    const app = (await store().listApps(tenant.id)).find((a) => a.name === 'Rotated')!;
    // Tokens need an active tenant and a database code: the operator sees to both.
    expect((await post(operator, `${D}/operator/tenants/${tenant.id}/activate`, { _csrf: await csrf(operator) })).status).toBe(303);
    expect(
      (
        await post(operator, `${D}/t/${tenant.id}/apps/${app.id}`, {
          _csrf: await csrf(operator),
          name: 'Rotated',
          licenseRegion: app.licenseRegion!,
          dbCode: 'db-1',
        })
      ).status,
    ).toBe(303);
    const token = (secret: string) =>
      fetch(`${rig.base}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
      });
    expect((await token(oldSecret)).status).toBe(200);

    const rotated = await post(owner, `${D}/t/${tenant.id}/apps/${app.id}/rotate-secret`, { _csrf: await csrf(owner) });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const newSecret = secretOf(await rotated.text());
    expect(newSecret).not.toBe(oldSecret);
    expect((await token(oldSecret)).status).toBe(401);
    expect((await token(newSecret)).status).toBe(200);
    const appPage = await (await get(owner, `${D}/t/${tenant.id}/apps/${app.id}`)).text();
    expect(appPage).not.toContain(newSecret);
    expect(appPage).not.toContain(oldSecret);
  });
});

describe('plans', () => {
  it('operators define plans; a refused one keeps its values and names the field', async () => {
    const bad = await post(operator, `${D}/plans`, {
      _csrf: await csrf(operator),
      name: 'Broken',
      maxDocumentUnitsPerMonth: '12.5',
      maxFileSizeMiB: '10',
      maxConcurrentJobs: '2',
      maxMiBPerSecond: '1',
    });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toMatch(/<p class="error" id="f-maxDocumentUnitsPerMonth-error">[^<]+<\/p>/);
    expect(html).toContain('value="Broken"');
    const good = await post(operator, `${D}/plans`, {
      _csrf: await csrf(operator),
      name: 'Team',
      maxDocumentUnitsPerMonth: '2000',
      maxFileSizeMiB: '10',
      maxConcurrentJobs: '2',
      maxMiBPerSecond: '1',
      ocrPdfExtraction: 'true',
    });
    expect(good.status).toBe(303);
    const plan = (await store().listPlans()).find((p) => p.name === 'Team')!;
    expect(plan).toMatchObject({
      maxDocumentUnitsPerMonth: 2000,
      maxFileSizeBytes: 10 * 1024 * 1024,
      maxConcurrentJobs: 2,
      maxBytesPerSecond: 1024 * 1024,
      ocrPdfExtraction: true,
      advancedPdfExtraction: false,
    });
    // Owners choose among the usable plans, and are offered no plan form.
    const ownerView = await (await get(owner, `${D}/plans`)).text();
    expect(ownerView).toContain('Team');
    expect(ownerView).not.toContain('Define a plan');
    const refused = await post(owner, `${D}/plans`, {
      _csrf: await csrf(owner),
      name: 'Mine',
      maxDocumentUnitsPerMonth: '1',
      maxFileSizeMiB: '1',
      maxConcurrentJobs: '1',
      maxMiBPerSecond: '1',
    });
    expect(refused.status).toBe(403);
    expect((await store().listPlans()).map((p) => p.name)).not.toContain('Mine');
  });
});

describe('organisations and their activation e-mail', () => {
  it('an organisation an operator creates is not called theirs: it has no members, and activating it says nobody was e-mailed', async () => {
    const made = await post(operator, `${D}/onboarding`, { _csrf: await csrf(operator), name: 'Made By Ops' });
    expect(made.status).toBe(303);
    const overview = await (await get(operator, made.headers.get('location')!)).text();
    expect(overview).not.toContain('You are its owner');
    expect(overview).toContain('Organisation created. It has no members yet');
    expect(overview).toContain('when it is activated, nobody is e-mailed, since it has no owner yet');
    const opsTenant = (await store().listTenants()).find((t) => t.name === 'Made By Ops')!;
    const activated = await post(operator, `${D}/operator/tenants/${opsTenant.id}/activate`, { _csrf: await csrf(operator) });
    expect(activated.status).toBe(303);
    const list = await (await get(operator, activated.headers.get('location')!)).text();
    expect(list).toContain('Made By Ops is active. Nobody was e-mailed: it has no owner and no contact address yet.');
    expect(list).not.toMatch(/being e-mailed|on its way|has been sent/);
  });

  it("activating an owner's organisation names who the e-mail goes to, and says it waits in the outbox when no SMTP server is configured", async () => {
    const made = await post(owner, `${D}/onboarding`, { _csrf: await csrf(owner), name: 'Owned And Mailed' });
    const overview = await (await get(owner, made.headers.get('location')!)).text();
    expect(overview).toContain('Organisation created. You are its owner.');
    expect(overview).toContain('when it is activated, its owners get an e-mail');
    const owned = (await store().listTenants()).find((t) => t.name === 'Owned And Mailed')!;
    const activated = await post(operator, `${D}/operator/tenants/${owned.id}/activate`, { _csrf: await csrf(operator) });
    const list = await (await get(operator, activated.headers.get('location')!)).text();
    expect(list).toContain(
      'Owned And Mailed is active. Its activation e-mail to owner@forms.test is kept in the outbox, unsent: no SMTP server is configured (DOCPARSE_SMTP_URL).',
    );
  });
});
