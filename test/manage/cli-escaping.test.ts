// Names written before names were checked (straight into the control plane here) cannot drive
// the operator's terminal: every `docparse admin` output — tables, blocks, JSON — shows their
// control and bidirectional characters as \u escapes, and a --json line still parses back to
// the name as stored. Runs the CLI as a real process on an embedded data dir.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { runCli } from './cli.js';

/** What a terminal must never be sent raw: C0 but LF, DEL, C1, bidi formatting, line/paragraph separators. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

const TENANT = 'Evil\u001b[2J\u001b[31mCorp\u202edlrow';
const APP = 'Bell\u0007\rOverwritten';
const PLAN = 'Plan\u009b31mC1\u2066isolated\u2069';
const KEY = 'key\u200fmark\u0085next';

describe('docparse admin output escapes names from older rows', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let tenantId: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-cli-escape-'));
    env = { DOCPARSE_DATA_DIR: dataDir, DOCPARSE_MASTER_KEY: 'cli-escaping-master-key-0123456789abcdef' };
    const store = await openControlPlaneStore({ dataDir });
    try {
      const db = store.db;
      tenantId = randomUUID();
      await db.query('INSERT INTO tenants (id, name, contact_email) VALUES ($1, $2, $3)', [tenantId, TENANT, 'ops\u202e@acme.test']);
      await db.query(
        `INSERT INTO apps (id, tenant_id, name, license_region, db_code, client_id, secret_hash, allowed_domains, enabled)
         VALUES ($1, $2, $3, 'local', 'db1', $4, 'x', '{}', true)`,
        [randomUUID(), tenantId, APP, `c-${randomUUID()}`],
      );
      await db.query(
        `INSERT INTO plans (id, name, max_document_units_per_month, advanced_pdf_extraction, ocr_pdf_extraction, max_file_size_bytes, max_concurrent_jobs, max_bytes_per_second)
         VALUES ($1, $2, 10, false, false, 1024, 1, 1024)`,
        [randomUUID(), PLAN],
      );
      await db.query("INSERT INTO operator_keys (id, name, key_sha256) VALUES ($1, $2, 'deadbeef')", [randomUUID(), KEY]);
    } finally {
      await store.close();
    }
  }, 120_000);
  afterAll(async () => {
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function admin(...args: string[]): Promise<string> {
    const r = await runCli(env, args);
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(UNSAFE);
    return r.stdout;
  }

  it('tables and blocks show the characters as escapes, columns still aligned', async () => {
    const tenants = await admin('tenant', 'list');
    expect(tenants).toContain('Evil\\u001b[2J\\u001b[31mCorp\\u202edlrow');
    expect(tenants).toContain('ops\\u202e@acme.test');
    const [header, row] = tenants
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('ID') || l.includes(tenantId));
    expect(row.indexOf('Evil')).toBe(header.indexOf('NAME'));

    expect(await admin('app', 'list')).toContain('Bell\\u0007\\u000dOverwritten');
    expect(await admin('plan', 'list')).toContain('Plan\\u009b31mC1\\u2066isolated\\u2069');
    expect(await admin('keys', 'list-operators')).toContain('key\\u200fmark\\u0085next');
    expect(await admin('tenant', 'activate', tenantId)).toContain('Evil\\u001b[2J');
  });

  it('a --json line is the same JSON: it parses back to the name as stored', async () => {
    const [tenant] = (JSON.parse((await admin('tenant', 'list', '--json')).trim()) as any[]).filter((x) => x.id === tenantId);
    expect(tenant.name).toBe(TENANT);
    const plans = JSON.parse((await admin('plan', 'list', '--json')).trim()) as any[];
    expect(plans.map((p) => p.name)).toContain(PLAN);
    const keys = JSON.parse((await admin('keys', 'list-operators', '--json')).trim()) as any[];
    expect(keys.map((k) => k.name)).toContain(KEY);
  });
});
