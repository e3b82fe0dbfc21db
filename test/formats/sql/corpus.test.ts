// SQL family against the real corpus (its sql folder, test/helpers/corpus-dir.mjs;
// skipped without it): statement counts per dialect against the MANIFEST (T-SQL against the
// hand-checked statement list in fixtures/), exact text and spans, schema validity, parse results.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { parseSql } from '../../../src/formats/sql/index.js';
import { SqlContent } from '../../../src/formats/sql/schema.js';
import { parseFileWith } from '../../helpers/parse.js';
import { hasSqlCorpus, sqlCorpusFile, sqlManifest, tsqlTruth } from './corpus-dir.js';

const DIALECT: Record<string, string> = { postgresql: 'PostgreSql', transactsql: 'MsSql', snowflake: 'Snowflake', mysql: 'MySql' };
const manifest = sqlManifest();
const TSQL_TRUTH = tsqlTruth();
const corpusPath = (_family: string, file: string): string => sqlCorpusFile(file);

export async function runSql(file: string, sqlDialect: string): Promise<Record<string, any>> {
  const r = await parseFileWith(parseSql, file, 'sql', { sqlDialect });
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.artifact;
}

/** Where the MANIFEST's tool-derived count is not the right one: the adjustment, computed from our parse, and why. */
function reconcile(file: string, dialect: string, text: string, content: Record<string, any>): { expected: number; why: string[] } {
  const why: string[] = [];
  let delta = 0;
  if (dialect === 'PostgreSql') {
    // The MANIFEST's scanner split cuts at every ';', also inside CREATE RULE … DO (a; b), which
    // PostgreSQL's grammar (and psql) read as one statement with several actions.
    for (const s of content.statements) {
      // Every ';' inside the action list was a cut (a trailing one left a lone ')' statement).
      const actions = s.ast?.RuleStmt?.actions;
      if (Array.isArray(actions) && actions.length > 1) delta += (s.text.match(/;/g) ?? []).length;
    }
    if (delta) why.push(`${delta} extra splits inside multi-action CREATE RULE`);
    // The scanner saw a psql `\copy` line as a statement only when it ended with ';'
    // (otherwise it merged it into the next statement); we count every \copy, which runs a COPY.
    const bare = content.statements.filter((s: any) => s.psqlCopy && s.terminator !== ';').length;
    if (bare) why.push(`${bare} \\copy lines without ';' the scanner merged into the next statement`);
    delta -= bare;
  }
  if (dialect === 'MySql') {
    // A stored program's BEGIN … END body is one statement to MySQL's grammar (and to us); the
    // MANIFEST's splitter cut at each ';' inside it, and merged a body not followed by ';' into
    // the next statement.
    let cuts = 0;
    let merged = 0;
    content.statements.forEach((s: any, i: number) => {
      if (!/^create\b/i.test(s.text) || !/\bbegin\b/i.test(s.text)) return;
      cuts += (s.text.replace(/'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|`[^`]*`|\/\*[\s\S]*?\*\/|(?:--\s|#)[^\n]*/g, ' ').match(/;/g) ?? []).length;
      if (s.terminator === null && i < content.statements.length - 1) merged++;
    });
    if (cuts) why.push(`${cuts} cuts at ';' inside stored-program bodies by the MANIFEST's splitter`);
    if (merged) why.push(`${merged} stored programs without a closing ';' merged into the next statement by it`);
    delta += cuts - merged;
    // dbgate does not know MySQL '#' comments: a file ending in "#end" gets one phantom statement.
    const tail = text.slice(text.lastIndexOf(';') + 1);
    if (tail.trim() && tail.split(/\r?\n/).every((l) => !l.trim() || /^\s*(#|-- )/.test(l))) {
      delta += 1;
      why.push("trailing '#' comment counted as a statement by the MANIFEST's splitter");
    }
  }
  return { expected: content.statementCount + delta, why };
}

/** Snowflake files where the MANIFEST's splitter (postgres options) splits inside scripting blocks. */
const SNOWFLAKE_TRUTH: Record<string, { count: number; why: string }> = {
  'snowflake__task_scripting.sql': { count: 2, why: 'two CREATE TASK … AS BEGIN/DECLARE … END blocks; the MANIFEST splits inside them (~9)' },
};

/** Statements and parsed statements per corpus file, filled by the per-file tests (and by the floor test for files not run). */
const tally = new Map<string, { dialect: string; statements: number; parsed: number; parsers: Record<string, number> }>();

function record(file: string, dialect: string, c: Record<string, any>): void {
  tally.set(file, { dialect, statements: c.statementCount, parsed: c.parsedCount, parsers: c.parsers ?? {} });
}

describe.skipIf(!hasSqlCorpus)('sql corpus: statements per file', () => {
  it('covers PostgreSQL, T-SQL, Snowflake and MySQL files', () => {
    const dialects = new Set(manifest.map((m) => m.dialect));
    expect([...dialects].sort()).toEqual(['mysql', 'postgresql', 'snowflake', 'transactsql']);
    expect(manifest.length).toBeGreaterThanOrEqual(70);
  });

  for (const m of manifest) {
    const dialect = DIALECT[m.dialect];
    const manifestCount = Number(m.statements.replace('~', ''));
    it(`${m.file} (${dialect}): MANIFEST ${m.statements}`, async () => {
      const file = corpusPath('sql', m.file);
      const text = fs.readFileSync(file, 'utf8');
      const a = await runSql(file, dialect);
      const c = a.content;
      expect(a.document_format).toBe('sql');
      expect(Value.Check(SqlContent, c), JSON.stringify([...Value.Errors(SqlContent, c)].slice(0, 3))).toBe(true);
      expect(c.dialect).toBe(dialect);
      expect(a.documentUnits).toBe(c.statements.length);
      expect(c.statementCount).toBe(c.statements.length);
      record(m.file, dialect, c);

      const sf = SNOWFLAKE_TRUTH[m.file];
      const truth = TSQL_TRUTH.get(m.file);
      if (dialect === 'MsSql') {
        // The MANIFEST's T-SQL counts are approximate (~): the hand-checked list is the truth.
        expect(truth, `${m.file} has no hand-checked statement list`).toBeDefined();
        const pos = (p: { line: number; column: number }): string => `${p.line}:${p.column}`;
        const ours = c.statements.map((s: any) => [s.index, pos(s.span.start), pos(s.span.end), s.batch, s.repeat ?? null, s.innerStatements?.length ?? 0]);
        expect(ours).toEqual(truth!.map((t) => [t.index, t.start, t.end, t.batch, t.repeat, t.inner]));
      } else if (sf) {
        expect(c.statementCount, sf.why).toBe(sf.count);
      } else {
        const { expected, why } = reconcile(m.file, dialect, text, c);
        expect(expected, `${m.file}: ours ${c.statementCount}; ${why.join('; ')}`).toBe(manifestCount);
      }

      // Exact text at the reported span; indexes in order; spans increasing.
      let prevEnd = 0;
      c.statements.forEach((s: any, i: number) => {
        expect(s.index).toBe(i);
        expect(text.slice(s.span.start.offset, s.span.end.offset)).toBe(s.text);
        expect(s.span.start.offset).toBeGreaterThanOrEqual(prevEnd);
        const before = text.slice(0, s.span.start.offset).split(/\r\n|\r|\n/);
        expect(s.span.start.line).toBe(before.length);
        expect(s.span.start.column).toBe(before[before.length - 1].length + 1);
        expect(s.text.trim()).toBe(s.text);
        expect(s.text.length).toBeGreaterThan(0);
        prevEnd = s.span.end.offset;
        if (s.parseStatus === 'parsed') expect(s.ast !== undefined || s.astOmitted === true).toBe(true);
        if (s.parseStatus === 'error') expect(s.parseError.message.length).toBeGreaterThan(0);
      });
    });
  }
});

/**
 * Parse coverage floors per dialect over the whole corpus (bench/sql/coverage.mjs prints the
 * figures): at least 90 % for every dialect; Snowflake's object DDL (tasks, pipes, stages,
 * warehouses, ALTER of account objects) is read by our own grammar (snowflake-objects.ts).
 */
const COVERAGE_FLOOR: Record<string, number> = { PostgreSql: 0.99, MsSql: 0.92, MySql: 0.93, Snowflake: 0.95 };

describe.skipIf(!hasSqlCorpus)('sql corpus: parse coverage per dialect', () => {
  for (const [dialect, floor] of Object.entries(COVERAGE_FLOOR)) {
    it(`${dialect}: at least ${floor * 100} % of the corpus statements parsed, each by a named parser`, async () => {
      let statements = 0;
      let parsed = 0;
      const parsers: Record<string, number> = {};
      for (const m of manifest.filter((x) => DIALECT[x.dialect] === dialect)) {
        if (!tally.has(m.file)) record(m.file, dialect, (await runSql(corpusPath('sql', m.file), dialect)).content);
        const t = tally.get(m.file)!;
        statements += t.statements;
        parsed += t.parsed;
        for (const [k, v] of Object.entries(t.parsers)) parsers[k] = (parsers[k] ?? 0) + v;
      }
      expect(statements).toBeGreaterThan(400);
      expect(parsed / statements, `${parsed} of ${statements} parsed: ${JSON.stringify(parsers)}`).toBeGreaterThanOrEqual(floor);
      expect(Object.values(parsers).reduce((a, b) => a + b, 0)).toBe(parsed);
    }, 600_000);
  }
});

describe.skipIf(!hasSqlCorpus)('sql corpus: parse results', () => {
  it('PostgreSQL: libpg-query parses nearly every statement of the regression scripts; types and tables come from the AST', async () => {
    const a = await runSql(corpusPath('sql', 'pg__create_function_3.sql'), 'PostgreSQL');
    const c = a.content;
    expect(c.parser).toMatch(/libpg-query/);
    expect(c.parseRate).toBeGreaterThan(0.9);
    expect(c.statementTypes['CREATE FUNCTION']).toBeGreaterThan(10);
    const j = await runSql(corpusPath('sql', 'pg__join.sql'), 'PostgreSql');
    const sel = j.content.statements.find((s: any) => s.type === 'SELECT' && s.tables.length >= 2);
    expect(sel).toBeDefined();
    expect(j.content.tables.length).toBeGreaterThan(5);
  });

  it('PostgreSQL: a statement the parser rejects is still counted, with its error position', async () => {
    const a = await runSql(corpusPath('sql', 'pg__create_table.sql'), 'PostgreSql');
    const bad = a.content.statements.filter((s: any) => s.parseStatus === 'error');
    expect(bad.length).toBeGreaterThan(0);
    expect(bad.some((s: any) => /partitioning strategy "magic"/.test(s.parseError.message))).toBe(true);
    expect(bad.every((s: any) => s.parseError.line >= s.span.start.line)).toBe(true);
    expect(a.documentUnits).toBe(355);
  });

  it('PostgreSQL: psql meta-commands are reported as directives, never as statements', async () => {
    const a = await runSql(corpusPath('sql', 'pg__rules.sql'), 'PostgreSql');
    expect(a.content.directives.some((d: any) => d.kind === 'psql' && d.text.startsWith('\\d+'))).toBe(true);
    expect(a.content.statements.some((s: any) => s.text.startsWith('\\'))).toBe(false);
  });

  it('T-SQL: statements, not GO batches, are the units; GO lines are directives; empty statements are not counted', async () => {
    const a = await runSql(corpusPath('sql', 'tsql__gogo.sql'), 'MsSql');
    expect(a.content.statements.map((s: any) => s.text)).toEqual(['sp_with_some_name', 'sp_with_params test', 'exec sp']);
    expect(a.content.statements.map((s: any) => s.batch)).toEqual([2, 5, 6]);
    expect(a.content.directives.filter((d: any) => d.kind === 'go')).toHaveLength(8);
    const d = await runSql(corpusPath('sql', 'tsql__dml_delete.sql'), 'MsSql');
    expect(d.content.parsedCount).toBeGreaterThan(15);
    expect(d.content.statementTypes.DELETE).toBeGreaterThan(10);
  });

  it('T-SQL: a procedure body runs to the end of its batch and lists its statements; IF … ELSE counts once', async () => {
    const a = await runSql(corpusPath('sql', 'tsql__control_flow.sql'), 'MsSql');
    const proc = a.content.statements.find((s: any) => s.text.startsWith('CREATE PROCEDURE findjobs'));
    expect(proc.text.endsWith('USE tempdb')).toBe(true);
    expect(proc.innerStatements.map((x: any) => [x.type, x.depth]).slice(0, 3)).toEqual([
      ['IF', 1],
      ['PRINT', 2],
      ['RETURN', 2],
    ]);
    const ifElse = a.content.statements.find((s: any) => s.text.startsWith("IF 1 = 1 PRINT 'Boolean_expression is true.'"));
    expect(ifElse.innerStatements).toHaveLength(2);
    expect(ifElse.type).toBe('IF');
  });

  it('MySQL and Snowflake: statement types and tables', async () => {
    const my = await runSql(corpusPath('sql', 'mysql__ddl_create.sql'), 'MySql');
    expect(my.content.statementTypes['CREATE TABLE']).toBeGreaterThan(20);
    expect(my.content.parsedCount).toBeGreaterThan(0);
    const sf = await runSql(corpusPath('sql', 'snowflake__create_table.sql'), 'Snowflake');
    expect(sf.content.statementTypes['CREATE TABLE']).toBeGreaterThan(50);
  });
});
