// Statements of any size are listed and billed exactly once (issue 27). A multi-row INSERT of
// ~10 MB or more used to vanish from a completed PostgreSQL job — libpg-query's scanner returns
// no tokens past ~3.6 million — taking the statements before it in the same piece along. Here:
// INSERTs of 8, 12 and 50 MiB, alone and between other statements, in pg_dump's form
// (PostgreSQL) and mysqldump's (MySQL, one line), 12 MiB in every other dialect, and the
// issue's dump through the service end to end. The dumps come from the fuzzer's generator.
// Such an INSERT is too large to parse whole (more than 250,000 tokens): it is parsed with its
// VALUES list cut to the first row, and says so (headParsed); a statement large for another
// reason is listed unparsed, with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPieces, largeInsertDump } from '../../../bench/fuzz/generators/sql-large.mjs';
import { loadPostgres, splitPostgres } from '../../../src/formats/sql/index.js';
import { createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../../helpers/node.js';
import { parseScript, statementsOf } from './script.js';

const TOO_MANY_TOKENS = /^not parsed: the statement has more than 250,000 tokens .*; it is listed and counted all the same$/;

/** The table each dialect's generated INSERT loads, as the parsers name it. */
const TABLE: Record<string, string> = {
  PostgreSql: 'public.items',
  MySql: 'items',
  MsSql: 'dbo.items',
  Snowflake: 'items',
  BigQuery: 'ds.items',
  Sqlite: 'items',
  Oracle: 'items',
};

/** Rows in the generator's INSERT of `mb` MiB (as largeInsertDump writes it). */
function rowsOf(dialect: string, mb: number): number {
  const ins = insertPieces(dialect, Math.round(mb * 1024 * 1024));
  for (const piece of ins) void piece;
  return ins.rows;
}

/** The dump parsed as the worker parses it: every statement found, in order, with the exact text; the INSERT parsed from its head, with its table and its row count; no warning. */
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
  expect([insert.parseStatus, insert.tables, insert.headParsed]).toEqual(['parsed', [TABLE[dialect]], { rows: rowsOf(dialect, mb), rowsParsed: 1 }]);
  expect(insert.parser).toMatch(dialect === 'PostgreSql' ? /^libpg-query/ : /^sqlparser-rs/);
  for (const s of content.statements.filter((x: any) => x !== insert)) expect([s.parseStatus, s.headParsed], s.text).toEqual(['parsed', undefined]);
  expect([content.parsedCount, content.headParsedCount]).toEqual([dump.statements.length, 1]);
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

  it('an INSERT under the token bound is parsed whole (its AST not written past 256 KiB)', async () => {
    for (const dialect of ['PostgreSql', 'MySql']) {
      const dump = largeInsertDump({ dialect, mb: 0.5, around: false });
      const { artifact } = (await parseScript(dump.text, dialect)) as { artifact: Record<string, any> };
      const [insert] = artifact.content.statements;
      expect(insert.parseStatus, dialect).toBe('parsed');
      expect(insert.headParsed).toBeUndefined();
      expect(insert.astOmitted).toBe(true);
      expect(insert.tables).toEqual([TABLE[dialect]]);
    }
  });
});

describe('an INSERT too large to parse whole is parsed from its head', { timeout: 120_000 }, () => {
  /** The only statement of `sql`, and the artifact's counts (the content checked against its schema). */
  async function only(sql: string, dialect: string): Promise<Record<string, any>> {
    const { content, units } = await statementsOf(sql, dialect);
    expect([units, content.statementCount]).toEqual([1, 1]);
    return content;
  }

  for (const dialect of ['MySql', 'PostgreSql', 'MsSql']) {
    const form = {
      MySql: "mysqldump's 1 MB extended INSERT (one line)",
      PostgreSql: 'a 1 MB pg_dump --rows-per-insert INSERT',
      MsSql: 'a 1 MB INSERT of N-strings',
    }[dialect];
    it(`${dialect}: ${form} is typed INSERT, names its table and row count, and keeps its text and its one unit`, async () => {
      const dump = largeInsertDump({ dialect, mb: 1, around: false });
      const content = await only(dump.text, dialect);
      const [s] = content.statements;
      expect(s.text === dump.statements[0].text).toBe(true);
      expect([s.type, s.parseStatus, s.tables, s.headParsed]).toEqual(['INSERT', 'parsed', [TABLE[dialect]], { rows: rowsOf(dialect, 1), rowsParsed: 1 }]);
      expect(s.parser).toMatch(dialect === 'PostgreSql' ? /^libpg-query/ : /^sqlparser-rs/);
      // The AST is the head's: the first row is in it, the second is not.
      const ast = JSON.stringify(s.ast);
      expect(ast).toContain('n0');
      expect(ast).not.toContain('n1');
      expect([content.parsedCount, content.headParsedCount, content.parseRate, content.tables]).toEqual([1, 1, 1, [TABLE[dialect]]]);
    });
  }

  it('Snowflake, BigQuery, SQLite, Oracle: the same from their 1 MB INSERTs', async () => {
    for (const dialect of ['Snowflake', 'BigQuery', 'Sqlite', 'Oracle']) {
      const [s] = (await only(largeInsertDump({ dialect, mb: 1, around: false }).text, dialect)).statements;
      expect([s.type, s.parseStatus, s.tables, s.headParsed], dialect).toEqual([
        'INSERT',
        'parsed',
        [TABLE[dialect]],
        { rows: rowsOf(dialect, 1), rowsParsed: 1 },
      ]);
    }
  });

  /** An INSERT of `n` short rows, one per line. */
  const rows = (n: number, row = (i: number) => `(${i}, 'n${i}', NULL)`): string => Array.from({ length: n }, (_, i) => row(i)).join(',\n');

  it('what follows the rows is parsed with the head: ON CONFLICT … RETURNING, ON DUPLICATE KEY UPDATE, REPLACE', async () => {
    const pg = (
      await only(`INSERT INTO t (id, name, note) VALUES\n${rows(90_000)}\nON CONFLICT (id) DO UPDATE SET name = excluded.name RETURNING id`, 'PostgreSql')
    ).statements[0];
    expect([pg.parseStatus, pg.headParsed.rows, Object.keys(pg.ast.InsertStmt).sort()]).toEqual([
      'parsed',
      90_000,
      ['cols', 'onConflictClause', 'override', 'relation', 'returningClause', 'selectStmt'],
    ]);
    const my = (await only(`INSERT INTO t VALUES ${rows(90_000)} ON DUPLICATE KEY UPDATE name = VALUES(name)`, 'MySql')).statements[0];
    expect([my.parseStatus, my.headParsed.rows, my.tables]).toEqual(['parsed', 90_000, ['t']]);
    expect(JSON.stringify(my.ast)).toContain('DuplicateKeyUpdate');
    // REPLACE is read as sqlparser-rs reads it with one row (its Insert, with replace_into set).
    const replace = (await only(`REPLACE INTO t VALUES ${rows(90_000)}`, 'MySql')).statements[0];
    const small = (await only(`REPLACE INTO t VALUES ${rows(1)}`, 'MySql')).statements[0];
    expect([replace.type, replace.parseStatus, replace.headParsed.rows, replace.tables, replace.ast]).toEqual([small.type, 'parsed', 90_000, ['t'], small.ast]);
  });

  it("a syntax error after the rows is the head's error, placed at its line and column in the statement", async () => {
    const sql = `INSERT INTO t (id, name, note) VALUES\n${rows(90_000)}\nON CONFLICT (id) DO UPDATE SET name = RETURNING id`;
    const [s] = (await only(sql, 'PostgreSql')).statements;
    expect([s.type, s.parseStatus, s.parser, s.headParsed.rows]).toEqual(['INSERT', 'error', null, 90_000]);
    expect(s.parseError).toEqual({ message: 'syntax error at or near "RETURNING"', line: 90_002, column: 'ON CONFLICT (id) DO UPDATE SET name = '.length + 1 });
  });

  it('a statement large for another reason stays skipped, with its reason', async () => {
    const skipped = [
      // One row of 300,000 values: the row list is not what makes it large.
      ['MySql', `INSERT INTO t VALUES (${Array(300_000).fill('1').join(', ')})`],
      // A long select list.
      ['PostgreSql', `SELECT ${Array(300_000).fill('1').join(', ')}`],
      // Rows from a query, not a VALUES list.
      ['MsSql', `INSERT INTO t (a, b) ${Array(50_000).fill("SELECT 1, N'x'").join(' UNION ALL ')}`],
      // Rows from VALUES, but as ROW(…) constructors.
      ['MySql', `INSERT INTO t VALUES ${Array(60_000).fill('ROW(1, 2)').join(', ')}`],
    ];
    for (const [dialect, sql] of skipped) {
      const content = await only(sql, dialect);
      const [s] = content.statements;
      expect([s.parseStatus, s.parser, s.headParsed, content.headParsedCount], sql.slice(0, 40)).toEqual(['skipped', null, undefined, undefined]);
      expect(s.parseError.message).toMatch(TOO_MANY_TOKENS);
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
      dump.statements.map((s) => [s.type, 'parsed', s.text.length]),
    );
  });
});
