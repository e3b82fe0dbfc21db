// The billing routes over real HTTP (the service's HttpServer, the management authenticator
// with real operator keys): who may read a tenant's figures, JSON and CSV negotiation, and
// figures equal to the units charged. A dashboard user is stood in for by a session resolver
// reading a test header (issue 20 brings the real session).
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingRoutes } from '../../src/manage/api/billing-routes.js';
import { HttpServer } from '../../src/http/server.js';
import type { ManageDeps } from '../../src/manage/api/kit.js';
import { EmbeddedRateCounters } from '../../src/jobs/embedded-counters.js';
import { createManageAuthenticator } from '../../src/manage/principal.js';
import { AuditStore } from '../../src/tenancy/audit-store.js';
import { BillingStore } from '../../src/tenancy/billing-store.js';
import { MembersStore } from '../../src/tenancy/members-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { freshPGliteStore, planInput } from '../tenancy/fixtures.js';
import { parseCsv } from '../billing/csv.js';

const MONTH = '2025-05';

let store: SqlControlPlaneStore;
let http: HttpServer;
let base: string;
let operatorKey: string;
let revokedKey: string;
let tenantId: string;
let appId: string;
const units = [7, 11, 13, 2];

beforeAll(async () => {
  store = await freshPGliteStore();
  const members = new MembersStore(store.db);
  const operatorKeys = new OperatorKeysStore(store.db);
  operatorKey = (await operatorKeys.create('billing test')).key;
  const revoked = await operatorKeys.create('revoked');
  revokedKey = revoked.key;
  await operatorKeys.revoke(revoked.record.id);

  const tenant = await store.createTenant({ name: 'Hooli' });
  const outsider = await store.createTenant({ name: 'Outsider' });
  tenantId = tenant.id;
  await members.upsertMember({ tenantId, email: 'member@hooli.test', role: 'member' });
  await members.upsertMember({ tenantId: outsider.id, email: 'owner@outsider.test', role: 'owner' });
  const plan = await store.createPlan(planInput({ maxDocumentUnitsPerMonth: 100 }));
  const app = await store.createApp({
    tenantId,
    name: 'api',
    licenseRegion: 'local',
    dbCode: 'db',
    clientId: `c-${randomUUID()}`,
    secretHash: 'x',
    planId: plan.id,
  });
  appId = app.id;
  const formats = ['pdf', 'docx', 'pdf', 'sql'];
  for (const [i, u] of units.entries()) {
    await store.chargeUsage({ chargeKey: `k${i}`, tenantId, appId, documentId: `d${i}`, month: MONTH, format: formats[i], units: u });
  }

  const deps = {
    store,
    members,
    operatorKeys,
    audit: new AuditStore(store.db),
    authenticate: createManageAuthenticator({
      operatorKeys,
      members,
      operatorEmails: [],
      sessions: async (ctx) => (ctx.headers['x-test-user'] ? { userId: ctx.headers['x-test-user'], email: ctx.headers['x-test-user'] } : null),
    }),
    regions: ['local'],
    counters: new EmbeddedRateCounters(), // wrong operator keys are counted in them
  } as unknown as ManageDeps; // the billing routes use only these
  http = new HttpServer({ logger: pino({ level: 'silent' }), maxHeaderBytes: 16384, trustProxy: false });
  for (const r of billingRoutes(deps, new BillingStore(store.db))) http.add(r);
  base = `http://127.0.0.1:${await http.listen('127.0.0.1', 0)}/manage/v1`;
});

afterAll(async () => {
  await http?.drain(0);
  await store?.close();
});

const total = units.reduce((a, b) => a + b, 0);
const asOperator = (extra: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${operatorKey}`, ...extra } });

describe('billing routes', () => {
  it('the statement as JSON equals the units charged, per app and family', async () => {
    const res = await fetch(`${base}/tenants/${tenantId}/statements/${MONTH}`, asOperator());
    expect(res.status).toBe(200);
    const s = await res.json();
    expect(s.totals).toEqual({ units: total, documents: 4, byFamily: { pdf: 20, office: 11, sql: 2 } });
    expect(s.apps).toEqual([
      expect.objectContaining({ appId, unitsCharged: total, remaining: 100 - total, byFamily: { pdf: 20, office: 11, sql: 2 }, overageUnits: 0 }),
    ]);
  });

  it('the statement as CSV with Accept: text/csv or ?format=csv', async () => {
    for (const [url, init] of [
      [`${base}/tenants/${tenantId}/statements/${MONTH}`, asOperator({ accept: 'text/csv' })],
      [`${base}/tenants/${tenantId}/statements/${MONTH}?format=csv`, asOperator()],
    ] as const) {
      const res = await fetch(url, init);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.headers.get('content-disposition')).toContain(`statement-${tenantId}-${MONTH}.csv`);
      const rows = parseCsv(await res.text());
      expect(rows.slice(1).reduce((n, r) => n + Number(r[10]), 0)).toBe(total);
    }
  });

  it('usage by family and day, and the usage lines export', async () => {
    const u = await (await fetch(`${base}/tenants/${tenantId}/usage/by-family?month=${MONTH}&granularity=day`, asOperator())).json();
    expect(u.granularity).toBe('day');
    expect(u.totals).toEqual({ units: total, documents: 4 });
    expect(u.quotas).toEqual([expect.objectContaining({ appId, unitsCharged: total, remaining: 100 - total })]);

    const lines = await fetch(`${base}/tenants/${tenantId}/usage.csv?month=${MONTH}`, asOperator());
    expect(lines.status).toBe(200);
    const rows = parseCsv(await lines.text());
    expect(rows).toHaveLength(1 + units.length);
    expect(rows.slice(1).reduce((n, r) => n + Number(r[8]), 0)).toBe(total);
  });

  it('a member of the tenant may read; anyone else gets 401 or 404', async () => {
    const url = `${base}/tenants/${tenantId}/statements/${MONTH}`;
    expect((await fetch(url, { headers: { 'x-test-user': 'member@hooli.test' } })).status).toBe(200);
    expect((await fetch(url, { headers: { 'x-test-user': 'owner@outsider.test' } })).status).toBe(404);
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${revokedKey}` } })).status).toBe(401);
    expect((await fetch(`${base}/tenants/nope/statements/${MONTH}`, asOperator())).status).toBe(404);
    expect((await fetch(`${base}/tenants/${tenantId}/usage.csv?month=${MONTH}`, { headers: { 'x-test-user': 'owner@outsider.test' } })).status).toBe(404);
  });

  it('a month that is not YYYY-MM is a 400', async () => {
    expect((await fetch(`${base}/tenants/${tenantId}/statements/2025-13`, asOperator())).status).toBe(400);
    expect((await fetch(`${base}/tenants/${tenantId}/usage/by-family?month=May`, asOperator())).status).toBe(400);
  });
});
