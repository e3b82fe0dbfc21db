// Statements of any size are listed and billed exactly once (issue 27). A multi-row INSERT of
// ~10 MB or more used to vanish from a completed PostgreSQL job — libpg-query's scanner returns
// no tokens past ~3.6 million — taking the statements before it in the same piece along. Here:
// INSERTs of 8, 12 and 50 MiB, alone and between other statements, in pg_dump's form
// (PostgreSQL) and mysqldump's (MySQL, one line), 12 MiB in every other dialect, and the
// issue's dump through the service end to end. The dumps come from the fuzzer's generator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { largeInsertDump } from '../../../bench/fuzz/generators/sql-large.mjs';
import { loadPostgres, splitPostgres } from '../../../src/formats/sql/index.js';
import { createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../../helpers/node.js';
import { parseScript } from './script.js';

const TOO_MANY_TOKENS = /^not parsed: the statement has more than 250,000 tokens .*; it is listed and counted all the same$/;

/** The dump parsed as the worker parses it: every statement found, in order, with the exact text; the INSERT listed unparsed with its reason; no warning. */
async function expectEveryStatement(dialect: string, mb: number, around: boolean): Promise<void> {
  const dump = largeInsertDump({ dialect, mb, around });
  const r = await parseScript(dump.text, dialect);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  const { content, documentUnits, warnings } = r.artifact;
  expect(warnings).toEqual([]);
  expect(documentUnits).toBe(dump.statements.length);
  expect(content.statementCount).toBe(dump.statements.length);
  expect(content.statements.map((s: any) => s.type)).toEqual(dump.statements.map((s: any) => s.type));
  // Compared as booleans: a failure must not print 50 MB.
  expect(content.statements.map((s: any, i: number) => s.text === dump.statements[i].text)).toEqual(dump.statements.map(() => true));
  const insert = content.statements.find((s: any) => s.type === 'INSERT');
  expect(insert.span.start.offset).toBe(dump.text.indexOf('INSERT'));
  expect(insert.parseStatus).toBe('skipped');
  expect(insert.parser).toBeNull();
  expect(insert.parseError.message).toMatch(TOO_MANY_TOKENS);
  for (const s of content.statements.filter((x: any) => x !== insert)) expect(s.parseStatus, s.text).toBe('parsed');
  expect(content.parsedCount).toBe(dump.statements.length - 1);
}

describe('a multi-row INSERT of any size is one statement, listed and billed', { timeout: 600_000 }, () => {
  for (const dialect of ['PostgreSql', 'MySql']) {
    for (const mb of [8, 12, 50]) {
      it(`${dialect}: ${mb} MiB INSERT between CREATE TABLE; SELECT 1; and SELECT 2;: four statements, four units`, () =>
        expectEveryStatement(dialect, mb, true));
      it(`${dialect}: ${mb} MiB INSERT alone: one statement, one unit`, () => expectEveryStatement(dialect, mb, false));
    }
  }
  for (const dialect of ['MsSql', 'Snowflake', 'BigQuery', 'Sqlite', 'Oracle']) {
    it(`${dialect}: 12 MiB INSERT between other statements: four statements, four units`, () => expectEveryStatement(dialect, 12, true));
  }

  it('an INSERT under the token bound is parsed (its AST not written past 256 KiB)', async () => {
    for (const dialect of ['PostgreSql', 'MySql']) {
      const dump = largeInsertDump({ dialect, mb: 0.5, around: false });
      const { artifact } = (await parseScript(dump.text, dialect)) as { artifact: Record<string, any> };
      const [insert] = artifact.content.statements;
      expect(insert.parseStatus, dialect).toBe('parsed');
      expect(insert.astOmitted).toBe(true);
      expect(insert.tables).toEqual([dialect === 'PostgreSql' ? 'public.items' : 'items']);
    }
  });
});

describe("PostgreSQL's scanner on text it cannot take at once", () => {
  beforeAll(async () => {
    await loadPostgres();
  });

  it('4 million tokens with no space, comma or parenthesis: split by the fallback lexer, with a warning that says so', () => {
    const sql = `SELECT 1;\nSELECT ${'1+'.repeat(2_000_000)}1;\nSELECT 2;\n`;
    const r = splitPostgres(sql);
    expect(r.statements.map((s) => [sql.slice(s.start, Math.min(s.end, s.start + 9)), s.end - s.start])).toEqual([
      ['SELECT 1', 8],
      ['SELECT 1+', 4_000_008],
      ['SELECT 2', 8],
    ]);
    expect(r.warnings).toEqual([
      "PostgreSQL's lexer gave up on a stretch with no space, comma or parenthesis in the text from offset 9; the rest was split by the fallback lexer",
    ]);
  });

  it('a number followed by letters is not reported as an unterminated string', () => {
    const r = splitPostgres('SELECT 1;\nSELECT 1abc;\nSELECT 2;');
    expect(r.statements).toHaveLength(3);
    expect(r.warnings).toEqual(["PostgreSQL's lexer found a number followed by letters in the text from offset 0; the rest was split by the fallback lexer"]);
  });
});

describe('through the service', { timeout: 600_000 }, () => {
  let env: TestEnv;
  let n: TestNode;
  let token: string;

  beforeAll(async () => {
    env = await createTestEnv('embedded');
    n = await startTestNode(env);
    token = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
  });
  afterAll(async () => {
    await n?.close();
    if (env) await destroyTestEnv(env);
  });

  it("the issue's dump (CREATE TABLE; SELECT 1; a 12 MiB INSERT; SELECT 2;) completes with four statements, four units billed", async () => {
    const dump = largeInsertDump({ dialect: 'PostgreSql', mb: 12, around: true });
    const auth = { authorization: `Bearer ${token}` };
    const res = await fetch(`${n.url}/api/v1/documents/upload?${new URLSearchParams({ fileName: 'dump.sql', sqlDialect: 'PostgreSQL' })}`, {
      method: 'POST',
      headers: auth,
      body: dump.text,
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { documentId } = (await res.json()) as { documentId: string };
    const status = await waitFor(
      async () => {
        const s = (await (await fetch(`${n.url}/api/v1/documents/${documentId}/status`, { headers: auth })).json()) as any;
        return s.statusInt === 8 || s.statusInt === 9 ? s : null;
      },
      'the dump to finish',
      500_000,
    );
    expect(status.statusInt, JSON.stringify(status.error)).toBe(8);
    expect(status.documentUnits).toBe(4);
    const artifact = (await (await fetch(`${n.url}/api/v1/documents/${documentId}/result`, { headers: auth })).json()) as any;
    expect(artifact.documentUnits).toBe(4);
    expect(artifact.warnings).toEqual([]);
    expect(artifact.content.statements.map((s: any) => [s.type, s.parseStatus, s.text.length])).toEqual(
      dump.statements.map((s) => [s.type, s.type === 'INSERT' ? 'skipped' : 'parsed', s.text.length]),
    );
  });
});
