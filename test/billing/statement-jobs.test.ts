// Statements equal the units charged to real jobs: CSVs, 3-page PDFs and a 5-statement
// PostgreSQL script run through an embedded node for two apps of one tenant; the tenant's
// statement (JSON and CSV, read through /manage/v1 with an operator key) gives each app and
// each format family exactly the sum of its jobs' documentUnits.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, generateClientSecret } from '../../src/identity/secrets.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { pagesPdf } from '../helpers/pdfs.js';
import { parseCsv } from './csv.js';

let env: TestEnv;
let n: TestNode;
let operatorKey: string;
let tenantId: string;
const apps: { appId: string; token: string }[] = [];

beforeAll(async () => {
  env = await createTestEnv('embedded', { DOCPARSE_WORKER_THREADS: '2' });
  n = await startTestNode(env);
  const first = await createApp(n.node, { name: 'billed', maxDocumentUnitsPerMonth: 10_000 });
  tenantId = first.tenantId;
  const store = n.node.controlPlane as SqlControlPlaneStore;
  const planId = (await store.getApp(first.appId))!.planId;
  // A second app of the same tenant, on the same plan.
  const clientSecret = generateClientSecret();
  const second = await store.createApp({
    tenantId,
    name: 'second app',
    licenseRegion: 'local',
    dbCode: 'db1',
    clientId: `c-${randomUUID()}`,
    secretHash: await hashSecret(clientSecret),
    planId,
  });
  apps.push({ appId: first.appId, token: await getToken(n.url, first.clientId, first.clientSecret) });
  apps.push({ appId: second.id, token: await getToken(n.url, second.clientId, clientSecret) });
  operatorKey = (await new OperatorKeysStore(store.db).create('statement-jobs')).key;
}, 120_000);
afterAll(async () => {
  await n?.close();
  if (env) await destroyTestEnv(env);
});

interface Job {
  appIndex: number;
  family: 'csv' | 'pdf' | 'sql';
  query: Record<string, string>;
  body: Buffer;
}

/** Uploads one document and waits until it completed; returns its status. */
async function run(job: Job): Promise<{ statusInt: number; documentUnits: number }> {
  const { token } = apps[job.appIndex];
  const res = await fetch(`${n.url}/api/v1/documents/upload?${new URLSearchParams(job.query)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: job.body,
  });
  expect(res.status, await res.clone().text()).toBe(202);
  const { documentId } = (await res.json()) as { documentId: string };
  return waitFor(
    async () => {
      const s = (await (await fetch(`${n.url}/api/v1/documents/${documentId}/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        statusInt: number;
        documentUnits: number;
      };
      return s.statusInt === 8 || s.statusInt === 9 ? s : null;
    },
    `${job.query.fileName} to finish`,
    120_000,
  );
}

const manage = (path: string) => fetch(`${n.url}/manage/v1${path}`, { headers: { authorization: `Bearer ${operatorKey}` } });

describe('statements equal the units charged to real jobs', { timeout: 300_000 }, () => {
  it('per app and per family, in JSON and in CSV', async () => {
    const csv = (i: number) => Buffer.from(`id,name,amount\n${i},row ${i},${i * 10}\n${i + 1},"row, ${i + 1}",7\n`);
    const sql = Buffer.from(
      'CREATE TABLE t (id int primary key, name text);\n' +
        "INSERT INTO t VALUES (1, 'a');\n" +
        "INSERT INTO t VALUES (2, 'b');\n" +
        "UPDATE t SET name = 'c' WHERE id = 2;\n" +
        'SELECT id, name FROM t ORDER BY id;\n',
    );
    const jobs: Job[] = [];
    for (const appIndex of [0, 1]) {
      for (let i = 0; i < (appIndex === 0 ? 3 : 2); i++)
        jobs.push({ appIndex, family: 'csv', query: { fileName: `rows-${appIndex}-${i}.csv`, csvRoute: 'Tabular' }, body: csv(i) });
      for (let i = 0; i < (appIndex === 0 ? 2 : 1); i++)
        jobs.push({ appIndex, family: 'pdf', query: { fileName: `pages-${appIndex}-${i}.pdf`, pdfMode: 'SingleColumn' }, body: pagesPdf(3) });
    }
    jobs.push({ appIndex: 1, family: 'sql', query: { fileName: 'script.sql', sqlDialect: 'PostgreSql' }, body: sql });
    const monthBefore = new Date().toISOString().slice(0, 7);
    const statuses = await Promise.all(jobs.map(run));
    const month = new Date().toISOString().slice(0, 7);
    expect(month, 'the jobs ran across a month boundary; run again').toBe(monthBefore);

    // What the jobs were charged, as their status says.
    const expected: Record<string, Record<string, number>> = { [apps[0].appId]: {}, [apps[1].appId]: {} };
    statuses.forEach((s, i) => {
      expect(s.statusInt, jobs[i].query.fileName).toBe(8);
      const byFamily = expected[apps[jobs[i].appIndex].appId];
      byFamily[jobs[i].family] = (byFamily[jobs[i].family] ?? 0) + s.documentUnits;
    });
    // The files are what they say: 1 unit per CSV, 3 per 3-page PDF, 5 for the 5 statements.
    expect(statuses.map((s, i) => [jobs[i].family, s.documentUnits])).toEqual(jobs.map((j) => [j.family, { csv: 1, pdf: 3, sql: 5 }[j.family]]));
    const total = statuses.reduce((sum, s) => sum + s.documentUnits, 0);
    expect(total).toBe(5 * 1 + 3 * 3 + 5);

    const res = await manage(`/tenants/${tenantId}/statements/${month}`);
    expect(res.status).toBe(200);
    const statement = (await res.json()) as {
      apps: { appId: string; unitsCharged: number; documents: number; byFamily: Record<string, number> }[];
      totals: { units: number; documents: number; byFamily: Record<string, number> };
    };
    expect(statement.apps.map((a) => a.appId).sort()).toEqual(Object.keys(expected).sort());
    for (const a of statement.apps) {
      expect(a.byFamily, `app ${a.appId}`).toEqual(expected[a.appId]);
      expect(a.unitsCharged).toBe(Object.values(expected[a.appId]).reduce((x, y) => x + y, 0));
      expect(a.documents).toBe(jobs.filter((j) => apps[j.appIndex].appId === a.appId).length);
    }
    expect(statement.totals.units).toBe(total);
    expect(statement.totals.documents).toBe(jobs.length);
    expect(statement.totals.byFamily).toEqual({
      csv: expected[apps[0].appId].csv + expected[apps[1].appId].csv,
      pdf: expected[apps[0].appId].pdf + expected[apps[1].appId].pdf,
      sql: expected[apps[1].appId].sql,
    });

    // The CSV version: the same figures per app and family, summing to the same total.
    const csvRes = await manage(`/tenants/${tenantId}/statements/${month}?format=csv`);
    expect(csvRes.status).toBe(200);
    expect(csvRes.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...records] = parseCsv(await csvRes.text());
    const col = (name: string) => header.indexOf(name);
    const fromCsv: Record<string, Record<string, number>> = {};
    let csvTotal = 0;
    for (const r of records) {
      expect(r[col('tenant_id')]).toBe(tenantId);
      const units = Number(r[col('units')]);
      (fromCsv[r[col('app_id')]] ??= {})[r[col('family')]] = units;
      csvTotal += units;
    }
    expect(fromCsv).toEqual(expected);
    expect(csvTotal).toBe(total);
    expect(records.reduce((sum, r) => sum + Number(r[col('documents')]), 0)).toBe(jobs.length);
  });
});
