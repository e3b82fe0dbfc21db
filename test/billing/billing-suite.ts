// Billing from the usage ledger: a month of generated charges (several apps, formats and days,
// charged through the store like jobs are) against the usage figures, quota remaining, the
// statement and its CSV — every figure equal to the units charged, to the unit. Run on PGlite
// and on PostgreSQL.
import { NO_PLAN_LIMITS } from '../../src/tenancy/plan-limits.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementCsv, usageCsv, usageLinesCsv } from '../../src/manage/api/billing-csv.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { BillingStore, familyOf, OVERAGE_NOTE } from '../../src/tenancy/billing-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import type { App, Plan, Tenant } from '../../src/tenancy/types.js';
import { planInput } from '../tenancy/fixtures.js';
import { parseCsv } from './csv.js';

export interface BillingEnv {
  store: SqlControlPlaneStore;
  dispose(): Promise<void>;
}

const MONTH = '2025-03';
const FORMATS = ['pdf', 'docx', 'xlsx', 'eml', 'sql', 'csv', 'geojson', 'dxf', 'parquet'];

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

interface Charge {
  appId: string;
  format: string;
  day: string;
  units: number;
}

export function billingSuite(engine: string, open: () => Promise<BillingEnv>): void {
  describe(`billing (${engine})`, () => {
    let env: BillingEnv;
    let billing: BillingStore;
    let tenant: Tenant;
    let other: Tenant;
    let plan: Plan;
    let apps: App[];
    const charges: Charge[] = [];

    async function charge(c: Charge & { month?: string; tenantId?: string }): Promise<void> {
      const chargeKey = randomUUID();
      await env.store.chargeUsage({
        chargeKey,
        tenantId: c.tenantId ?? tenant.id,
        appId: c.appId,
        documentId: randomUUID(),
        month: c.month ?? MONTH,
        format: c.format,
        units: c.units,
      });
      // The day a job was charged: the ledger stamps now(); a generated month spreads them out.
      await env.store.db.query('UPDATE usage_ledger SET charged_at = $2::timestamptz WHERE charge_key = $1', [
        chargeKey,
        `${c.day}T${String(c.units % 24).padStart(2, '0')}:30:00Z`,
      ]);
    }

    beforeAll(async () => {
      env = await open();
      billing = new BillingStore(env.store.db);
      tenant = await env.store.createTenant({ name: 'Initech, "billing" dept' });
      other = await env.store.createTenant({ name: 'Other' });
      plan = await env.store.createPlan(planInput({ name: 'metered', maxDocumentUnitsPerMonth: 5000 }));
      const mk = (name: string, planId: string | null, tenantId = tenant.id) =>
        env.store.createApp({ tenantId, name, licenseRegion: 'local', dbCode: 'db', clientId: `c-${randomUUID()}`, secretHash: 'x', planId });
      apps = [await mk('ingest', plan.id), await mk('=SUM(A1)', plan.id), await mk('no plan', null)];
      const otherApp = await mk('elsewhere', plan.id, other.id);

      const next = rng(19);
      for (let i = 0; i < 120; i++) {
        const c = {
          appId: apps[Math.floor(next() * 2)].id, // the third app has no charges
          format: FORMATS[Math.floor(next() * FORMATS.length)],
          day: `${MONTH}-${String(1 + Math.floor(next() * 31)).padStart(2, '0')}`,
          units: 1 + Math.floor(next() * 40),
        };
        charges.push(c);
        await charge(c);
      }
      // Noise that must not show: another month, another tenant, a hold of a job in progress.
      await charge({ appId: apps[0].id, format: 'pdf', day: '2025-04-01', units: 777, month: '2025-04' });
      await charge({ appId: otherApp.id, format: 'pdf', day: `${MONTH}-10`, units: 555, tenantId: other.id });
      await env.store.reserveUnits({
        chargeKey: 'held',
        tenantId: tenant.id,
        appId: apps[0].id,
        documentId: 'd-held',
        month: MONTH,
        units: 333,
        quota: 5000,
        holdSeconds: 600,
      });
    });
    afterAll(async () => {
      await env?.dispose();
    });

    const sum = (list: Charge[]) => list.reduce((s, c) => s + c.units, 0);

    it('usage per app and family equals the units charged, to the unit', async () => {
      const u = await billing.usage(tenant.id, MONTH);
      expect(u.totals).toEqual({ units: sum(charges), documents: charges.length });
      for (const app of apps.slice(0, 2)) {
        for (const family of new Set(FORMATS.map(familyOf))) {
          const expected = charges.filter((c) => c.appId === app.id && familyOf(c.format) === family);
          const figure = u.items.find((f) => f.appId === app.id && f.family === family);
          expect(figure?.units ?? 0, `${app.name} ${family}`).toBe(sum(expected));
          expect(figure?.documents ?? 0).toBe(expected.length);
        }
      }
      expect(u.items.every((f) => f.day === null)).toBe(true);
    });

    it('usage per day equals the units charged that UTC day', async () => {
      const u = await billing.usage(tenant.id, MONTH, 'day');
      expect(u.granularity).toBe('day');
      const days = new Set(charges.map((c) => c.day));
      for (const day of days) {
        expect(
          u.items.filter((f) => f.day === day).reduce((s, f) => s + f.units, 0),
          day,
        ).toBe(sum(charges.filter((c) => c.day === day)));
      }
      expect(u.totals.units).toBe(sum(charges));
    });

    it('quota remaining: the plan quota (or the no-plan limit) minus units charged this month, holds aside', async () => {
      const q = await billing.quotas(tenant.id, MONTH);
      const ingest = q.find((x) => x.appId === apps[0].id)!;
      const used = sum(charges.filter((c) => c.appId === apps[0].id));
      expect(ingest).toEqual({
        appId: apps[0].id,
        appName: 'ingest',
        plan: { id: plan.id, name: 'metered', quota: 5000 },
        quota: 5000,
        unitsCharged: used,
        remaining: 5000 - used,
      });
      // An app without a plan is held to the no-plan limit, and shown so.
      const noPlan = NO_PLAN_LIMITS.maxDocumentUnitsPerMonth;
      expect(q.find((x) => x.appId === apps[2].id)).toEqual({
        appId: apps[2].id,
        appName: 'no plan',
        plan: null,
        quota: noPlan,
        unitsCharged: 0,
        remaining: noPlan,
      });
      expect(q.map((x) => x.appId)).not.toContain(undefined);
    });

    it('the statement: units per app and family, the plan, no overage; its CSV parses back to the same figures', async () => {
      const s = await billing.statement(tenant.id, MONTH);
      expect(s.tenant).toEqual({ id: tenant.id, name: tenant.name, state: 'Pending Activation' });
      expect(s.overage).toEqual({ units: 0, note: OVERAGE_NOTE });
      expect(s.totals.units).toBe(sum(charges));
      expect(s.apps).toHaveLength(3);
      for (const a of s.apps) {
        const mine = charges.filter((c) => c.appId === a.appId);
        expect(a.unitsCharged).toBe(sum(mine));
        expect(a.documents).toBe(mine.length);
        expect(a.overageUnits).toBe(0);
        for (const [family, units] of Object.entries(a.byFamily)) expect(units).toBe(sum(mine.filter((c) => familyOf(c.format) === family)));
        expect(Object.values(a.byFamily).reduce((x, y) => x + y, 0)).toBe(a.unitsCharged);
      }

      const rows = parseCsv(statementCsv(s));
      expect(rows[0]).toEqual([
        'month',
        'tenant_id',
        'tenant_name',
        'app_id',
        'app_name',
        'plan_id',
        'plan_name',
        'quota',
        'quota_remaining',
        'family',
        'units',
        'documents',
        'overage_units',
      ]);
      const records = rows.slice(1).map((r) => Object.fromEntries(rows[0].map((h, i) => [h, r[i]])));
      expect(records.reduce((t, r) => t + Number(r.units), 0)).toBe(sum(charges));
      expect(records.reduce((t, r) => t + Number(r.documents), 0)).toBe(charges.length);
      for (const a of s.apps) {
        for (const [family, units] of Object.entries(a.byFamily)) {
          expect(records.filter((r) => r.app_id === a.appId && r.family === family).map((r) => Number(r.units))).toEqual([units]);
        }
      }
      expect(records.every((r) => r.tenant_name === tenant.name && r.overage_units === '0')).toBe(true);
      // A name a spreadsheet would run as a formula is defused.
      expect(records.find((r) => r.app_id === apps[1].id)!.app_name).toBe("'=SUM(A1)");
      expect(records.filter((r) => r.app_id === apps[2].id)).toEqual([
        expect.objectContaining({
          family: '',
          units: '0',
          quota: String(NO_PLAN_LIMITS.maxDocumentUnitsPerMonth),
          quota_remaining: String(NO_PLAN_LIMITS.maxDocumentUnitsPerMonth),
        }),
      ]);
    });

    it('the usage lines export has every charge once; usage CSV parses back to the figures', async () => {
      const lines = await billing.usageLines({ tenantId: tenant.id, month: MONTH });
      expect(lines).toHaveLength(charges.length);
      const rows = parseCsv(usageLinesCsv(lines));
      expect(rows[0]).toEqual(['charged_at', 'day', 'month', 'tenant_id', 'app_id', 'document_id', 'format', 'family', 'units', 'charge_key']);
      expect(rows.slice(1).reduce((t, r) => t + Number(r[8]), 0)).toBe(sum(charges));
      expect(new Set(rows.slice(1).map((r) => r[9])).size).toBe(charges.length);
      expect(rows.slice(1).every((r) => r[1] === r[0].slice(0, 10) && r[2] === MONTH && r[7] === familyOf(r[6]))).toBe(true);

      const byDay = parseCsv(usageCsv(await billing.usage(tenant.id, MONTH, 'day')));
      expect(byDay.slice(1).reduce((t, r) => t + Number(r[5]), 0)).toBe(sum(charges));

      const one = await billing.usageLines({ appId: apps[1].id, month: MONTH });
      expect(one.reduce((t, l) => t + l.units, 0)).toBe(sum(charges.filter((c) => c.appId === apps[1].id)));
    });

    it("a deleted app's charges stay on the statement", async () => {
      const t = await env.store.createTenant({ name: 'Deleting' });
      const app = await env.store.createApp({
        tenantId: t.id,
        name: 'gone',
        licenseRegion: 'local',
        dbCode: 'db',
        clientId: `c-${randomUUID()}`,
        secretHash: 'x',
        planId: plan.id,
      });
      await env.store.chargeUsage({ chargeKey: randomUUID(), tenantId: t.id, appId: app.id, documentId: 'd', month: MONTH, format: 'pdf', units: 9 });
      await env.store.db.query('DELETE FROM apps WHERE id = $1', [app.id]);
      const s = await billing.statement(t.id, MONTH);
      expect(s.apps).toEqual([expect.objectContaining({ appId: app.id, appName: null, plan: null, unitsCharged: 9, byFamily: { pdf: 9 } })]);
      expect(s.totals.units).toBe(9);
    });

    it('refuses a month that is not YYYY-MM and an unknown tenant', async () => {
      await expect(billing.usage(tenant.id, '2025-3')).rejects.toThrow(/YYYY-MM/);
      await expect(billing.statement('nope', MONTH)).rejects.toThrow(/tenant nope not found/);
    });

    describe('CLI', () => {
      async function cli(...argv: string[]) {
        const lines: string[] = [];
        const code = await runAdmin(argv, env.store, (l) => lines.push(l));
        return { code, lines, text: lines.join('\n') };
      }

      it('statement --json, --csv and for people', async () => {
        const json = await cli('statement', '--tenant', tenant.id, '--month', MONTH, '--json');
        expect(json.code, json.text).toBe(0);
        const s = JSON.parse(json.lines[0]);
        expect(s.totals.units).toBe(sum(charges));
        expect(s.apps.map((a: { unitsCharged: number }) => a.unitsCharged).reduce((x: number, y: number) => x + y, 0)).toBe(sum(charges));

        const csv = await cli('statement', '--tenant', tenant.id, '--month', MONTH, '--csv');
        expect(csv.code).toBe(0);
        const rows = parseCsv(csv.lines.join('\n') + '\n');
        expect(rows.slice(1).reduce((t, r) => t + Number(r[10]), 0)).toBe(sum(charges));

        const human = await cli('statement', '--tenant', tenant.id, '--month', MONTH);
        expect(human.text).toContain(`total:        ${sum(charges)} Document Units, ${charges.length} documents`);
        expect(human.text).toContain('overage:      none');

        expect((await cli('statement', '--tenant', tenant.id, '--month', 'March')).code).toBe(2);
        expect((await cli('statement', '--tenant', tenant.id, '--csv', '--json')).code).toBe(2);
        expect((await cli('statement', '--tenant', 'nope', '--month', MONTH)).code).toBe(1);
      });

      it('usage --csv prints the usage lines of an app or a tenant; --tenant summarises per app', async () => {
        const appCsv = await cli('usage', '--app', apps[0].id, '--month', MONTH, '--csv');
        expect(appCsv.code, appCsv.text).toBe(0);
        const appRows = parseCsv(appCsv.lines.join('\n') + '\n');
        expect(appRows.slice(1).reduce((t, r) => t + Number(r[8]), 0)).toBe(sum(charges.filter((c) => c.appId === apps[0].id)));

        const tenantCsv = await cli('usage', '--tenant', tenant.id, '--month', MONTH, '--csv');
        expect(parseCsv(tenantCsv.lines.join('\n') + '\n').length - 1).toBe(charges.length);

        const summary = await cli('usage', '--tenant', tenant.id, '--month', MONTH, '--json');
        expect(JSON.parse(summary.lines[0]).totals.units).toBe(sum(charges));
        const human = await cli('usage', '--tenant', tenant.id, '--month', MONTH);
        expect(human.text).toContain(`used ${sum(charges)} Document Units in ${MONTH}`);

        expect((await cli('usage', '--month', MONTH)).code).toBe(2);
        expect((await cli('usage', '--app', apps[0].id, '--tenant', tenant.id)).code).toBe(2);
      });
    });
  });
}
