// The management API (/manage/v1) on a whole node, embedded (PGlite) or distributed
// (PostgreSQL + Redis): every endpoint's contract, who may call it, and what a user notices
// (a created app gets a token at once; a disabled one is refused its next token).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Validator } from '@seriousme/openapi-schema-validator';
import { loadConfig } from '../../src/config.js';
import { startNode, type RunningNode } from '../../src/node.js';
import type { RequestContext } from '../../src/http/route.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { MembersStore } from '../../src/tenancy/members-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import { createTestEnv, destroyTestEnv, type Mode, type TestEnv } from '../helpers/node.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { requestToken } from './cli.js';

/**
 * Stands in for the dashboard's sign-in (issue 20) in these tests only: the signed-in
 * user's address comes in a header. Everything behind it (roles from the members table,
 * operators by DOCPARSE_OPERATOR_EMAILS) is the real code.
 */
const TEST_CSRF = 'suite-csrf-token';
const signedInUser = async (ctx: RequestContext) => {
  const email = ctx.headers['x-test-user'];
  return email ? { userId: `user:${email}`, email, csrfToken: TEST_CSRF } : null;
};

/** An operator key (`from`: the client address a trusted proxy names), a signed-in user, or nobody. */
type As = { key: string; from?: string } | { user: string } | null;
interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export function manageApiSuite(mode: Mode): void {
  describe(`management API (${mode})`, () => {
    let t: TestEnv;
    let node: RunningNode;
    let url: string;
    let s3: TestS3;
    let operatorKey: string;
    let members: MembersStore;
    const OPERATOR_USER = { user: 'root@ops.test' };
    const ALICE = { user: 'alice@acme.test' };
    const BOB = { user: 'bob@other.test' };
    const CAROL = { user: 'carol@acme.test' };
    let op: As;

    async function call(method: string, path: string, as: As, body?: unknown): Promise<Answer> {
      const headers: Record<string, string> = {};
      if (as && 'key' in as) headers.authorization = `Bearer ${as.key}`;
      if (as && 'key' in as && as.from) headers['x-forwarded-for'] = as.from;
      if (as && 'user' in as) Object.assign(headers, { 'x-test-user': as.user, 'x-csrf-token': TEST_CSRF });
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    }
    const m = (method: string, path: string, as: As, body?: unknown) => call(method, `/manage/v1${path}`, as, body);

    let acme: any;
    let other: any;
    let plan: any;

    beforeAll(async () => {
      t = await createTestEnv(mode, {
        DOCPARSE_REGIONS: 'eu-west-1, us-east-1',
        DOCPARSE_OPERATOR_EMAILS: 'Root@ops.test',
        DOCPARSE_SEED_DEMO: 'false',
        // The tenant storage of these tests is s3rver on loopback.
        DOCPARSE_OUTBOUND_ALLOW: '127.0.0.0/8',
        // Wrong keys are limited per client address: the wrong-key checks come from many (X-Forwarded-For).
        DOCPARSE_TRUST_PROXY: 'true',
      });
      node = await startNode(loadConfig(t.env, ['api', 'auth']), {
        logger: pino({ level: 'silent' }),
        redisPrefix: t.redisPrefix,
        manageSessions: signedInUser,
      });
      url = `http://127.0.0.1:${node.port}`;
      const db = (node.controlPlane as SqlControlPlaneStore).db;
      members = new MembersStore(db);
      operatorKey = (await new OperatorKeysStore(db).create('suite')).key;
      op = { key: operatorKey };
      s3 = await startS3(`bucket-${randomUUID().slice(0, 8)}`);
    });
    afterAll(async () => {
      await node?.close();
      await s3?.close();
      if (t) await destroyTestEnv(t);
    });

    it('refuses every endpoint without credentials (401 missing_credentials), with a wrong or revoked operator key (401 invalid_credentials)', async () => {
      // Wrong keys are limited to 10 a minute per address and 100 from all together (bearer-attempts.test.ts):
      // one wrong key per endpoint, the three kinds in turn, each from its own address.
      const wrongKeys = (revokedKey: string) => ['dp_op_not-a-key', revokedKey, 'an-app-token'];
      let attempt = 0;
      const routes = node.http.router.routes.filter((r) => r.auth === 'manage');
      expect(routes.length).toBeGreaterThanOrEqual(30);
      const revoked = await new OperatorKeysStore((node.controlPlane as SqlControlPlaneStore).db).create('to revoke');
      expect((await m('GET', '/tenants', { key: revoked.key })).status).toBe(200);
      const revokedAnswer = await m('POST', `/operator-keys/${revoked.record.id}/revoke`, op);
      expect(revokedAnswer.status).toBe(200);
      expect(revokedAnswer.body.revokedAt).not.toBeNull();
      for (const r of routes) {
        const path = r.path.replace(/:([A-Za-z]+)/g, () => randomUUID());
        const body = r.body ? {} : undefined;
        const none = await call(r.method, path, null, body);
        expect(none.status, `${r.method} ${r.path}`).toBe(401);
        expect(none.body.code).toBe('missing_credentials');
        expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="docparse-manage"/);
        expect(none.headers.get('content-type')).toBe('application/problem+json');
        const key = wrongKeys(revoked.key)[attempt % 3];
        const wrong = await call(r.method, path, { key, from: `198.18.0.${++attempt}` }, body);
        expect(wrong.status, `${r.method} ${r.path} with ${key}`).toBe(401);
        expect(wrong.body.code).toBe('invalid_credentials');
      }
    });

    it('tenants: a signed-in user creates one (Pending Activation, they own it); an operator activates it', async () => {
      const created = await m('POST', '/tenants', ALICE, { name: 'Acme' });
      expect(created.status).toBe(201);
      acme = created.body;
      expect(acme).toMatchObject({ name: 'Acme', state: 'Pending Activation', activatedAt: null });
      other = (await m('POST', '/tenants', BOB, { name: 'Other' })).body;

      const listed = await m('GET', '/tenants', ALICE);
      expect(listed.body.items.map((x: any) => x.id)).toEqual([acme.id]);
      expect((await m('GET', '/tenants', op)).body.items.map((x: any) => x.id)).toEqual(expect.arrayContaining([acme.id, other.id]));
      expect((await m('GET', `/tenants/${acme.id}`, ALICE)).body).toEqual(acme);
      // Another tenant's and a missing tenant are the same 404.
      const foreign = await m('GET', `/tenants/${acme.id}`, BOB);
      const missing = await m('GET', `/tenants/${randomUUID()}`, BOB);
      expect([foreign.status, missing.status]).toEqual([404, 404]);
      expect(foreign.body.code).toBe('tenant_not_found');

      expect((await m('POST', `/tenants/${acme.id}/activate`, ALICE)).body.code).toBe('operator_required');
      expect((await m('POST', `/tenants/${acme.id}/activate`, BOB)).status).toBe(404);
      expect((await m('POST', `/tenants/${acme.id}/reactivate`, op)).status).toBe(409);
      const activated = await m('POST', `/tenants/${acme.id}/activate`, op);
      expect(activated.status).toBe(200);
      expect(activated.body.state).toBe('Active');
      expect(activated.body.activatedAt).not.toBeNull();
      // A user listed in DOCPARSE_OPERATOR_EMAILS is an operator (matched case-insensitively).
      expect((await m('GET', `/tenants/${other.id}`, OPERATOR_USER)).status).toBe(200);
      expect((await m('POST', `/tenants/${other.id}/activate`, OPERATOR_USER)).body.state).toBe('Active');

      expect((await m('POST', '/tenants', op, { name: ' ' })).body).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'name' });
      const withContact = await m('POST', '/tenants', op, { name: 'Contact Co', contactEmail: 'Boss@Contact.test' });
      const invited = await m('GET', `/tenants/${withContact.body.id}/members`, op);
      expect(invited.body.invitations).toEqual([expect.objectContaining({ email: 'boss@contact.test', role: 'owner', mailedAt: null })]);
    });

    it('plans: operators define and retire them; everyone else lists the usable ones', async () => {
      expect((await m('POST', '/plans', ALICE, { name: 'nope', maxDocumentUnitsPerMonth: 1 })).body.code).toBe('operator_required');
      const created = await m('POST', '/plans', op, { name: 'pro', maxDocumentUnitsPerMonth: 5000, ocrPdfExtraction: true, maxFileSizeBytes: 1024 ** 3 });
      expect(created.status).toBe(201);
      plan = created.body;
      expect(plan).toMatchObject({
        status: 'usable',
        maxDocumentUnitsPerMonth: 5000,
        ocrPdfExtraction: true,
        advancedPdfExtraction: false,
        maxFileSizeBytes: 1024 ** 3,
        maxConcurrentJobs: 8,
        maxBytesPerSecond: 64 * 1024 ** 2,
      });
      const old = (await m('POST', '/plans', op, { name: 'old', maxDocumentUnitsPerMonth: 10 })).body;
      const retired = await m('POST', `/plans/${old.id}/retire`, op);
      expect(retired.body).toEqual({ plan: expect.objectContaining({ id: old.id, status: 'retired' }), appsOnPlan: 0 });
      expect((await m('POST', `/plans/${old.id}/retire`, ALICE)).status).toBe(403);
      const seenByAlice = (await m('GET', '/plans', ALICE)).body.items.map((p: any) => p.id);
      expect(seenByAlice).toContain(plan.id);
      expect(seenByAlice).not.toContain(old.id);
      expect((await m('GET', '/plans?status=retired', op)).body.items.map((p: any) => p.id)).toEqual([old.id]);
      expect((await m('GET', `/plans/${plan.id}`, BOB)).body.id).toBe(plan.id);
      expect((await m('GET', `/plans/${randomUUID()}`, op)).status).toBe(404);
      expect((await m('POST', '/plans', op, { name: 'x', maxDocumentUnitsPerMonth: -1 })).body.parameter).toBe('maxDocumentUnitsPerMonth');
    });

    let app: any;
    let secret: string;

    it('apps: created by an owner, the secret is shown once and gets a token at once (after an operator stamps the database code)', async () => {
      expect((await m('GET', '/regions', ALICE)).body.items).toEqual(['eu-west-1', 'us-east-1']);
      const badRegion = await m('POST', `/tenants/${acme.id}/apps`, ALICE, { name: 'crm', licenseRegion: 'mars-1' });
      expect(badRegion.body).toMatchObject({ status: 400, parameter: 'licenseRegion', allowed: ['eu-west-1', 'us-east-1'] });
      expect(
        (
          await m('POST', `/tenants/${acme.id}/apps`, ALICE, {
            name: 'crm',
            licenseRegion: 'eu-west-1',
            allowedDomains: ['a.test', 'b.test', 'c.test', 'd.test'],
          })
        ).body.parameter,
      ).toBe('allowedDomains');
      expect(
        (await m('POST', `/tenants/${acme.id}/apps`, ALICE, { name: 'crm', licenseRegion: 'eu-west-1', allowedDomains: ['https://a.test'] })).body.parameter,
      ).toBe('allowedDomains');
      expect((await m('POST', `/tenants/${acme.id}/apps`, ALICE, { name: 'crm', licenseRegion: 'eu-west-1', dbCode: 'eu1' })).body.code).toBe(
        'operator_required',
      );
      expect((await m('POST', `/tenants/${acme.id}/apps`, BOB, { name: 'crm', licenseRegion: 'eu-west-1' })).status).toBe(404);

      const created = await m('POST', `/tenants/${acme.id}/apps`, ALICE, {
        name: 'crm',
        licenseRegion: 'eu-west-1',
        allowedDomains: ['App.Acme.test', 'admin.acme.test:8443'],
        planId: plan.id,
      });
      expect(created.status).toBe(201);
      app = created.body.app;
      secret = created.body.clientSecret;
      expect(created.body.clientId).toBe(app.clientId);
      expect(app).toMatchObject({
        tenantId: acme.id,
        licenseRegion: 'eu-west-1',
        dbCode: null,
        allowedDomains: ['app.acme.test', 'admin.acme.test:8443'],
        enabled: true,
        planId: plan.id,
      });
      expect(JSON.stringify(app)).not.toContain('secretHash');
      const stored = await node.controlPlane.getApp(app.id);
      expect(stored!.secretHash).not.toContain(secret);

      // No database code yet: refused, naming why.
      const early = await requestToken(url, app.clientId, secret);
      expect(early).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
      expect(early.body.error_description).toMatch(/database code/);
      expect((await m('PATCH', `/apps/${app.id}`, ALICE, { dbCode: 'eu1' })).body.code).toBe('operator_required');
      const stamped = await m('PATCH', `/apps/${app.id}`, op, { dbCode: 'eu1' });
      expect(stamped.body.dbCode).toBe('eu1');
      const token = await requestToken(url, app.clientId, secret);
      expect(token.status).toBe(200);
      const claims = JSON.parse(Buffer.from(token.body.access_token.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({
        tenantid: acme.id,
        appId: app.id,
        licenseRegionCode: 'eu-west-1',
        dbCode: 'eu1',
        allowed_domain_1: 'app.acme.test',
        entitlements: { maxDocumentUnitsPerMonth: 5000, ocrPdfExtraction: true },
      });

      // An operator creates an app with everything: its secret works on the very next request.
      const full = await m('POST', `/tenants/${acme.id}/apps`, op, { name: 'etl', licenseRegion: 'us-east-1', dbCode: 'us1' });
      expect((await requestToken(url, full.body.clientId, full.body.clientSecret)).status).toBe(200);
    });

    it("apps: a pending tenant's app gets no token; disable refuses the next token; enable, rotate, settings, delete", async () => {
      const pending = (await m('POST', '/tenants', op, { name: 'Pending' })).body;
      const pendingApp = (await m('POST', `/tenants/${pending.id}/apps`, op, { name: 'p', licenseRegion: 'eu-west-1', dbCode: 'x' })).body;
      const refused = await requestToken(url, pendingApp.clientId, pendingApp.clientSecret);
      expect(refused.body.error_description).toMatch(/not active \(state: Pending Activation\)/);

      expect((await m('POST', `/apps/${app.id}/disable`, BOB)).status).toBe(404);
      const disabled = await m('POST', `/apps/${app.id}/disable`, ALICE);
      expect(disabled.body.enabled).toBe(false);
      expect((await requestToken(url, app.clientId, secret)).body).toMatchObject({
        error: 'unauthorized_client',
        error_description: expect.stringMatching(/disabled/),
      });
      expect((await m('POST', `/apps/${app.id}/enable`, ALICE)).body.enabled).toBe(true);
      expect((await requestToken(url, app.clientId, secret)).status).toBe(200);

      const rotated = await m('POST', `/apps/${app.id}/rotate-secret`, ALICE);
      expect(rotated.status).toBe(200);
      expect((await requestToken(url, app.clientId, secret)).status).toBe(401);
      secret = rotated.body.clientSecret;
      expect((await requestToken(url, app.clientId, secret)).status).toBe(200);

      const patched = await m('PATCH', `/apps/${app.id}`, ALICE, { name: 'crm2', licenseRegion: 'us-east-1', allowedDomains: ['x.test'], planId: null });
      expect(patched.body).toMatchObject({ name: 'crm2', licenseRegion: 'us-east-1', allowedDomains: ['x.test'], planId: null, dbCode: 'eu1' });
      expect((await m('PATCH', `/apps/${app.id}`, ALICE, {})).status).toBe(400);
      const retiredPlan = (await m('GET', '/plans?status=retired', op)).body.items[0];
      expect((await m('PATCH', `/apps/${app.id}`, ALICE, { planId: retiredPlan.id })).body.parameter).toBe('planId');
      expect((await m('PATCH', `/apps/${app.id}`, ALICE, { planId: plan.id })).body.planId).toBe(plan.id);
      expect((await m('GET', `/apps/${app.id}`, ALICE)).body.name).toBe('crm2');
      expect((await m('GET', `/apps/${app.id}`, BOB)).body.code).toBe('app_not_found');
      expect((await m('GET', '/apps', BOB)).body.items).toEqual([]);
      expect((await m('GET', `/apps?tenantId=${acme.id}`, BOB)).body.items).toEqual([]);
      expect((await m('GET', `/apps?tenantId=${acme.id}`, ALICE)).body.items.map((a: any) => a.id)).toContain(app.id);

      const doomed = (await m('POST', `/tenants/${acme.id}/apps`, op, { name: 'doomed', licenseRegion: 'eu-west-1', dbCode: 'x' })).body;
      await node.controlPlane.chargeUsage({
        chargeKey: `k-${randomUUID()}`,
        tenantId: acme.id,
        appId: doomed.app.id,
        documentId: 'd',
        month: '2026-01',
        format: 'pdf',
        units: 7,
      });
      expect((await m('DELETE', `/apps/${doomed.app.id}`, BOB)).status).toBe(404);
      expect((await m('DELETE', `/apps/${doomed.app.id}`, ALICE)).body.id).toBe(doomed.app.id);
      expect((await requestToken(url, doomed.clientId, doomed.clientSecret)).status).toBe(401);
      expect((await m('GET', `/apps/${doomed.app.id}`, ALICE)).status).toBe(404);
      // Its usage stays for billing.
      const usage = await m('GET', `/tenants/${acme.id}/usage?month=2026-01`, ALICE);
      expect(usage.body.apps.find((a: any) => a.appId === doomed.app.id)).toMatchObject({ unitsUsed: 7, byFormat: { pdf: 7 }, planId: null });
      expect(usage.body.unitsUsed).toBe(7);
    });

    it('members: owners invite and remove; members read but change nothing; another tenant sees nothing', async () => {
      expect((await m('GET', `/tenants/${acme.id}/members`, BOB)).status).toBe(404);
      const invite = await m('POST', `/tenants/${acme.id}/invitations`, ALICE, { email: 'Carol@Acme.test', role: 'member' });
      expect(invite.status).toBe(201);
      expect(invite.body).toMatchObject({ email: 'carol@acme.test', role: 'member', acceptedAt: null, mailedAt: null });
      expect((await m('POST', `/tenants/${acme.id}/invitations`, ALICE, { email: 'carol@acme.test', role: 'owner' })).body.code).toBe('already_invited');
      expect((await m('POST', `/tenants/${acme.id}/invitations`, ALICE, { email: 'not-an-address', role: 'owner' })).status).toBe(400);
      expect((await m('POST', `/tenants/${acme.id}/invitations`, BOB, { email: 'x@y.test', role: 'owner' })).status).toBe(404);
      // Before she signs in, carol sees nothing.
      expect((await m('GET', `/tenants/${acme.id}`, CAROL)).status).toBe(404);
      await members.acceptInvitations('carol@acme.test', 'user:carol@acme.test');
      const listed = await m('GET', `/tenants/${acme.id}/members`, CAROL);
      expect(listed.body.members.map((x: any) => [x.email, x.role])).toEqual([
        ['alice@acme.test', 'owner'],
        ['carol@acme.test', 'member'],
      ]);
      expect(listed.body.invitations).toEqual([]);

      // A member reads, and is refused every change (403, since the tenant is theirs to see).
      expect((await m('GET', `/apps/${app.id}`, CAROL)).status).toBe(200);
      expect((await m('GET', `/apps/${app.id}/usage`, CAROL)).status).toBe(200);
      for (const [method, path, body] of [
        ['PATCH', `/apps/${app.id}`, { name: 'x' }],
        ['POST', `/apps/${app.id}/disable`, undefined],
        ['POST', `/apps/${app.id}/enable`, undefined],
        ['POST', `/apps/${app.id}/rotate-secret`, undefined],
        ['DELETE', `/apps/${app.id}`, undefined],
        ['POST', `/tenants/${acme.id}/apps`, { name: 'x', licenseRegion: 'eu-west-1' }],
        ['POST', `/tenants/${acme.id}/invitations`, { email: 'z@acme.test', role: 'member' }],
        ['DELETE', `/tenants/${acme.id}/members/alice@acme.test`, undefined],
        ['POST', `/tenants/${acme.id}/storage-configs`, { bucket: 'b', accessKeyId: 'a', secretAccessKey: 's' }],
      ] as const) {
        const r = await m(method, path, CAROL, body);
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.code).toBe('owner_required');
      }
      for (const [method, path, body] of [
        ['POST', `/tenants/${acme.id}/deactivate`, undefined],
        ['POST', '/plans', { name: 'x', maxDocumentUnitsPerMonth: 1 }],
        ['GET', '/signing-keys', undefined],
        ['POST', '/signing-keys/rotate', undefined],
        ['GET', '/operator-keys', undefined],
        ['POST', '/operator-keys', {}],
      ] as const) {
        const r = await m(method, path, CAROL, body);
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.code).toBe('operator_required');
      }

      expect((await m('DELETE', `/tenants/${acme.id}/members/alice@acme.test`, ALICE)).body.code).toBe('last_owner');
      expect((await m('DELETE', `/tenants/${acme.id}/members/carol@acme.test`, ALICE)).body).toMatchObject({ email: 'carol@acme.test', role: 'member' });
      expect((await m('GET', `/apps/${app.id}`, CAROL)).status).toBe(404);
      expect((await m('DELETE', `/tenants/${acme.id}/members/carol@acme.test`, ALICE)).status).toBe(404);
      const second = await m('POST', `/tenants/${acme.id}/invitations`, ALICE, { email: 'dave@acme.test', role: 'owner' });
      expect((await m('DELETE', `/tenants/${acme.id}/invitations/${second.body.id}`, BOB)).status).toBe(404);
      expect((await m('DELETE', `/tenants/${acme.id}/invitations/${second.body.id}`, ALICE)).body.revokedAt).not.toBeNull();
      expect((await m('DELETE', `/tenants/${acme.id}/invitations/${second.body.id}`, ALICE)).status).toBe(404);
    });

    it('storage configs: saved only after a live bucket check, the secret never shown back; assigned to an app of the same tenant', async () => {
      const good = {
        provider: 'minio',
        endpoint: s3.endpoint,
        bucket: s3.bucket,
        accessKeyId: s3.accessKeyId,
        secretAccessKey: s3.secretAccessKey,
        forcePathStyle: true,
      };
      const missingBucket = await m('POST', `/tenants/${acme.id}/storage-configs`, ALICE, { ...good, bucket: 'no-such-bucket' });
      expect(missingBucket.status).toBe(422);
      expect(missingBucket.body.code).toBe('storage_unreachable');
      expect((await m('GET', `/tenants/${acme.id}/storage-configs`, ALICE)).body.items).toEqual([]);
      expect((await m('POST', `/tenants/${acme.id}/storage-configs`, ALICE, { ...good, verify: false })).body.code).toBe('operator_required');

      const created = await m('POST', `/tenants/${acme.id}/storage-configs`, ALICE, good);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ tenantId: acme.id, provider: 'minio', bucket: s3.bucket, endpoint: s3.endpoint, forcePathStyle: true });
      expect(Object.keys(created.body).some((k) => /secret/i.test(k))).toBe(false);
      const stored = await node.controlPlane.getStorageConfig(created.body.id);
      expect(stored!.secretAccessKeySealed).not.toContain(s3.secretAccessKey);
      expect((await m('GET', `/storage-configs/${created.body.id}`, ALICE)).body).toEqual(created.body);
      expect((await m('GET', `/storage-configs/${created.body.id}`, BOB)).status).toBe(404);
      expect((await m('GET', `/tenants/${acme.id}/storage-configs`, BOB)).status).toBe(404);
      expect((await m('GET', `/tenants/${acme.id}/storage-configs`, ALICE)).body.items).toEqual([created.body]);

      expect((await m('PATCH', `/apps/${app.id}`, ALICE, { storageConfigId: created.body.id })).body.storageConfigId).toBe(created.body.id);
      const bobsApp = (await m('POST', `/tenants/${other.id}/apps`, BOB, { name: 'b', licenseRegion: 'eu-west-1' })).body.app;
      expect((await m('PATCH', `/apps/${bobsApp.id}`, BOB, { storageConfigId: created.body.id })).body.parameter).toBe('storageConfigId');
    });

    it('usage: per app per month from the ledger, against the plan quota', async () => {
      for (const [units, format] of [
        [3, 'pdf'],
        [4, 'csv'],
        [5, 'pdf'],
      ] as const) {
        await node.controlPlane.chargeUsage({
          chargeKey: `k-${randomUUID()}`,
          tenantId: acme.id,
          appId: app.id,
          documentId: randomUUID(),
          month: '2026-02',
          format,
          units,
        });
      }
      const u = await m('GET', `/apps/${app.id}/usage?month=2026-02`, ALICE);
      expect(u.body).toEqual({
        appId: app.id,
        tenantId: acme.id,
        month: '2026-02',
        unitsUsed: 12,
        quota: 5000,
        planId: plan.id,
        documents: 3,
        byFormat: { pdf: 8, csv: 4 },
      });
      expect((await m('GET', `/apps/${app.id}/usage?month=2026-13`, ALICE)).body.parameter).toBe('month');
      expect((await m('GET', `/apps/${app.id}/usage`, BOB)).status).toBe(404);
      const tenantUsage = await m('GET', `/tenants/${acme.id}/usage?month=2026-02`, ALICE);
      expect(tenantUsage.body.unitsUsed).toBe(12);
      expect(tenantUsage.body.apps.find((a: any) => a.appId === app.id).unitsUsed).toBe(12);
      expect((await m('GET', `/tenants/${acme.id}/usage`, BOB)).status).toBe(404);
    });

    it('signing keys: operators list and rotate them', async () => {
      const before = (await m('GET', '/signing-keys', op)).body.items;
      const rotated = await m('POST', '/signing-keys/rotate', op);
      expect(rotated.body.retired).toEqual(expect.arrayContaining(before.filter((k: any) => !k.retiredAt).map((k: any) => k.kid)));
      const after = (await m('GET', '/signing-keys', op)).body.items;
      expect(after[0]).toMatchObject({ kid: rotated.body.kid, retiredAt: null });
      expect(JSON.stringify(after)).not.toMatch(/private|sealed/i);
    });

    it('operator keys: created (shown once), listed without the key, revoked', async () => {
      const created = await m('POST', '/operator-keys', op, { name: 'automation' });
      expect(created.status).toBe(201);
      expect(created.body.key).toMatch(/^dp_op_[A-Za-z0-9_-]{43}$/);
      expect((await m('GET', '/tenants', { key: created.body.key })).status).toBe(200);
      const listed = await m('GET', '/operator-keys', op);
      expect(listed.body.items.map((k: any) => k.name)).toContain('automation');
      expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
      expect((await m('POST', `/operator-keys/${created.body.operatorKey.id}/revoke`, op)).status).toBe(200);
      expect((await m('GET', '/tenants', { key: created.body.key })).status).toBe(401);
      expect((await m('POST', `/operator-keys/${randomUUID()}/revoke`, op)).status).toBe(404);
    });

    it('audit: every change with who, what, when and from where; owners read their tenant, operators all; paged', async () => {
      const mine = await m('GET', `/audit?tenantId=${acme.id}&limit=500`, ALICE);
      expect(mine.status).toBe(200);
      const actions = mine.body.items.map((e: any) => e.action);
      for (const a of [
        'tenant.create',
        'tenant.activate',
        'app.create',
        'app.update',
        'app.disable',
        'app.enable',
        'app.rotate-secret',
        'app.delete',
        'member.invite',
        'member.remove',
        'member.revoke-invitation',
        'storage.create',
      ]) {
        expect(actions, a).toContain(a);
      }
      expect(mine.body.items.every((e: any) => e.tenantId === acme.id)).toBe(true);
      const create = mine.body.items.find((e: any) => e.action === 'app.create' && e.objectId === app.id);
      expect(create).toMatchObject({
        actor: { kind: 'user', id: 'user:alice@acme.test', email: 'alice@acme.test' },
        objectType: 'app',
        clientAddress: expect.stringMatching(/127\.0\.0\.1/),
        requestId: expect.any(String),
      });
      // An operator's change: owners see its kind only; operators see which key, from where.
      const activation = mine.body.items.find((e: any) => e.action === 'tenant.activate');
      expect(activation).toMatchObject({ actor: { kind: 'operator', id: null, email: null }, clientAddress: null });
      expect(activation.diff).toEqual({ state: { from: 'Pending Activation', to: 'Active' } });
      const seenByOperator = (await m('GET', `/audit?tenantId=${acme.id}&limit=500`, op)).body.items.find((e: any) => e.id === activation.id);
      expect(seenByOperator).toMatchObject({
        actor: { kind: 'operator', id: expect.stringMatching(/^operator-key:/) },
        clientAddress: expect.stringMatching(/127\.0\.0\.1/),
      });
      // No secret ever reaches the log.
      expect(JSON.stringify(mine.body)).not.toContain(secret);
      const storage = mine.body.items.find((e: any) => e.action === 'storage.create');
      expect(Object.keys(storage.diff).sort()).toEqual([
        'accessKeyId',
        'bucket',
        'checksums',
        'endpoint',
        'forcePathStyle',
        'prefix',
        'provider',
        'region',
        'verified',
      ]);
      expect(JSON.stringify(mine.body)).not.toMatch(/scrypt\$/);

      expect((await m('GET', `/audit?tenantId=${acme.id}`, BOB)).status).toBe(404);
      const bobs = await m('GET', '/audit?limit=500', BOB);
      expect(bobs.body.items.every((e: any) => e.tenantId === other.id)).toBe(true);
      const all = await m('GET', '/audit?limit=500', op);
      expect(all.body.items.some((e: any) => e.action === 'plan.create')).toBe(true);
      expect(all.body.items.length).toBeGreaterThan(mine.body.items.length);

      const first = await m('GET', `/audit?tenantId=${acme.id}&limit=2`, ALICE);
      expect(first.body.items).toHaveLength(2);
      const page2 = await m('GET', `/audit?tenantId=${acme.id}&limit=2&before=${first.body.next}`, ALICE);
      expect(page2.body.items.map((e: any) => e.id)).toEqual(mine.body.items.slice(2, 4).map((e: any) => e.id));
    });

    it('tenant lifecycle: deactivate refuses the next token; reactivate restores it', async () => {
      expect((await m('POST', `/tenants/${acme.id}/deactivate`, op)).body.state).toBe('Deactivated');
      expect((await requestToken(url, app.clientId, secret)).body.error_description).toMatch(/Deactivated/);
      expect((await m('POST', `/tenants/${acme.id}/activate`, op)).body.code).toBe('invalid_state');
      expect((await m('POST', `/tenants/${acme.id}/reactivate`, op)).body.state).toBe('Active');
      expect((await requestToken(url, app.clientId, secret)).status).toBe(200);
    });

    it('is described by its own OpenAPI document (valid 3.1), apart from /openapi/v1.json', async () => {
      const res = await fetch(`${url}/openapi/manage-v1.json`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as any;
      const v = new Validator();
      const r = await v.validate(structuredClone(doc));
      expect(r.errors ?? []).toEqual([]);
      expect(r.valid).toBe(true);
      const documented = Object.entries(doc.paths as Record<string, object>)
        .flatMap(([p, ops]) => Object.keys(ops).map((k) => `${k.toUpperCase()} ${p}`))
        .sort();
      const registered = node.http.router.routes
        .filter((x) => x.api === 'manage')
        .map((x) => `${x.method} ${x.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
        .sort();
      expect(documented).toEqual(registered);
      expect(doc.paths['/manage/v1/tenants/{tenantId}/apps'].post.security).toEqual([{ operatorKey: [] }]);
      expect(doc.paths['/manage/v1/tenants/{tenantId}/apps'].post.requestBody.content['application/json'].schema.required).toEqual(['name', 'licenseRegion']);
      // Error answers list the catalogue codes each route declares (and those its credentials and body imply).
      const codes = (status: string) =>
        [
          ...doc.paths['/manage/v1/tenants/{tenantId}/apps'].post.responses[status].content['application/problem+json'].schema.allOf[1].properties.code.enum,
        ].sort();
      expect(codes('401')).toEqual(['invalid_credentials', 'missing_credentials']);
      expect(codes('403')).toEqual(['csrf_failed', 'operator_required', 'owner_required']);
      expect(codes('404')).toEqual(['tenant_not_found']);
      expect(codes('413')).toEqual(['document_too_large']);
      expect(codes('415')).toEqual(['unsupported_media_type']);
      const v1 = (await (await fetch(`${url}/openapi/v1.json`)).json()) as any;
      expect(Object.keys(v1.paths).filter((p) => p.startsWith('/manage') || p.includes('manage-v1'))).toEqual([]);
    });
  });
}
