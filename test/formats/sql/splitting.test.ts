// Dialect rules of the statement splitters, on small inline scripts.
import { beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { loadPostgres, splitGeneric, splitPostgres, normalizeDialect } from '../../../src/formats/sql/index.js';
import { SqlContent } from '../../../src/formats/sql/schema.js';
import { hasSqlCorpus, SQL_CORPUS } from './corpus-dir.js';
import { parseScript } from './script.js';

beforeAll(async () => {
  await loadPostgres();
});

const texts = (sql: string, d: Parameters<typeof splitGeneric>[1] | 'PostgreSql'): string[] => {
  const r = d === 'PostgreSql' ? splitPostgres(sql) : splitGeneric(sql, d);
  return r.statements.map((s) => sql.slice(s.start, s.end));
};

describe('PostgreSQL splitting (PostgreSQL tokens, psql rules)', () => {
  it('never splits inside strings, comments, dollar bodies or quoted identifiers', () => {
    const sql = `select 'a;b', "c;d" from t; -- x; y\n/* a; /* nested; */ b; */ select $f$ x; y $f$;\ncreate function f() returns int as $$ begin return 1; end $$ language plpgsql;\nselect E'it\\'s;';`;
    expect(texts(sql, 'PostgreSql')).toEqual([
      `select 'a;b', "c;d" from t`,
      `select $f$ x; y $f$`,
      `create function f() returns int as $$ begin return 1; end $$ language plpgsql`,
      `select E'it\\'s;'`,
    ]);
  });
  it('keeps SQL-standard BEGIN ATOMIC bodies and parenthesised rule actions whole', () => {
    const sql = `create function g(a int) returns int language sql begin atomic select a + 1; select case when a > 0 then 1 else 2 end; end;\ncreate rule r as on insert to t do instead (insert into u values (1); delete from v);\nselect 2`;
    const t = texts(sql, 'PostgreSql');
    expect(t).toHaveLength(3);
    expect(t[0]).toMatch(/end$/);
    expect(t[2]).toBe('select 2');
  });
  it('drops psql meta-command lines and counts \\copy as a statement', () => {
    const r = splitPostgres(`\\set x 1\nselect 1;\n\\d+ t\n\\copy t to stdout\nselect 2;`);
    expect(r.statements).toHaveLength(3);
    expect(r.statements[1].psqlCopy).toBe(true);
    expect((r.extras.psqlMetaCommands as unknown[]).length).toBe(2);
  });
  it('COPY … FROM STDIN inline data (pg_dump style) is data, not statements', () => {
    const sql = `COPY t (a, b) FROM stdin;\n1\tx; y\n2\t'z\n\\.\nSELECT 1;\nCOPY u FROM stdin;\n\\.\nSELECT 2;`;
    const r = splitPostgres(sql);
    expect(r.statements.map((s) => sql.slice(s.start, s.end))).toEqual(['COPY t (a, b) FROM stdin', 'SELECT 1', 'COPY u FROM stdin', 'SELECT 2']);
  });
  it.skipIf(!hasSqlCorpus)('large scripts are scanned in pieces with the same result as file by file', () => {
    const dir = SQL_CORPUS;
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.startsWith('pg__'))
      .sort();
    const texts = files.map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
    const each = texts.reduce((n, t) => n + splitPostgres(t).statements.length, 0);
    const all = Array(3).fill(texts.join('\n;\n')).join('\n;\n');
    expect(all.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(splitPostgres(all).statements.length).toBe(3 * each);
  });
  it('reports byte-accurate spans with non-ASCII text', async () => {
    const sql = `select 'héllo 😀';\nselect 'ü' as x;`;
    const r = await parseScript(sql, 'PostgreSQL');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const st = r.artifact.content.statements;
    expect(st.map((s: any) => s.text)).toEqual([`select 'héllo 😀'`, `select 'ü' as x`]);
    expect(st[1].span.start).toEqual({ offset: sql.indexOf("select 'ü"), line: 2, column: 1 });
    expect(Value.Check(SqlContent, r.artifact.content)).toBe(true);
  });
  it('an unterminated string keeps the rest as one statement with a warning', () => {
    const r = splitPostgres(`select 1; select $x$ a; b $x$; select E'\\';'; select 'abc`);
    expect(r.statements).toHaveLength(4);
    expect(r.warnings.length).toBe(2);
  });
});

describe('T-SQL statements (GO batches are not statements)', () => {
  const tsql = (sql: string): string[] => splitGeneric(sql, 'MsSql').statements.map((st) => sql.slice(st.start, st.end));

  it("the issue's script: five statements in three GO batches are five units, the procedure counting once", async () => {
    const sql = [
      'CREATE TABLE dbo.t (id int, name nvarchar(20))',
      "INSERT INTO dbo.t VALUES (1, N'a')",
      'GO',
      'CREATE PROCEDURE dbo.p AS',
      'BEGIN',
      '  SELECT id FROM dbo.t',
      '  SELECT name FROM dbo.t WHERE id = 1',
      'END',
      'GO',
      'SELECT COUNT(*) FROM dbo.t',
      'DELETE FROM dbo.t WHERE id = 1',
      'GO',
    ].join('\n');
    const r = await parseScript(sql, 'MsSql');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const c = r.artifact.content;
    expect(r.artifact.documentUnits).toBe(5);
    expect(c.statements.map((s: any) => [s.type, s.batch])).toEqual([
      ['CREATE TABLE', 0],
      ['INSERT', 0],
      ['CREATE PROCEDURE', 1],
      ['SELECT', 2],
      ['DELETE', 2],
    ]);
    expect(c.statements[2].innerStatements.map((x: any) => x.text)).toEqual(['SELECT id FROM dbo.t', 'SELECT name FROM dbo.t WHERE id = 1']);
    expect(c.batchCount).toBe(3);
    expect(c.directives.map((d: any) => d.text)).toEqual(['GO', 'GO', 'GO']);
    expect(Value.Check(SqlContent, c)).toBe(true);
  });

  it('splits at GO lines, records GO n on each statement of its batch, ignores GO inside comments and strings', () => {
    const sql = `select 1; select 2\nGO\n/* GO\n*/ print 'x\nGO\n'\nprint 'y'\ngo 5\n-- only a comment\nGO\nselect [a;b] from t`;
    const r = splitGeneric(sql, 'MsSql');
    expect(r.statements.map((s) => sql.slice(s.start, s.end))).toEqual(['select 1', 'select 2', `print 'x\nGO\n'`, "print 'y'", 'select [a;b] from t']);
    expect(r.statements.map((s) => [s.batch, s.repeat])).toEqual([
      [0, undefined],
      [0, undefined],
      [1, 5],
      [1, 5],
      [3, undefined],
    ]);
    expect(r.statements[3].terminator).toBe('GO 5');
  });

  it('ends statements without semicolons where the grammar begins the next, and not where a keyword continues one', () => {
    expect(tsql('DECLARE @x int SET @x = 1 SELECT @x PRINT @x')).toEqual(['DECLARE @x int', 'SET @x = 1', 'SELECT @x', 'PRINT @x']);
    expect(tsql('INSERT INTO t (a) SELECT a FROM u UNION ALL SELECT b FROM v SELECT 1')).toEqual([
      'INSERT INTO t (a) SELECT a FROM u UNION ALL SELECT b FROM v',
      'SELECT 1',
    ]);
    expect(tsql('UPDATE t SET a = 1 FROM t WITH (NOLOCK) SET NOCOUNT ON')).toEqual(['UPDATE t SET a = 1 FROM t WITH (NOLOCK)', 'SET NOCOUNT ON']);
    expect(tsql('WITH c AS (SELECT 1 AS x) SELECT x FROM c ORDER BY x OFFSET 0 ROWS FETCH NEXT 5 ROWS ONLY DELETE FROM t')).toEqual([
      'WITH c AS (SELECT 1 AS x) SELECT x FROM c ORDER BY x OFFSET 0 ROWS FETCH NEXT 5 ROWS ONLY',
      'DELETE FROM t',
    ]);
    expect(tsql('MERGE t USING s ON t.a = s.a WHEN MATCHED THEN UPDATE SET b = s.b WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a);')).toHaveLength(1);
    expect(tsql('GRANT SELECT, INSERT, UPDATE ON t TO u SELECT 1')).toEqual(['GRANT SELECT, INSERT, UPDATE ON t TO u', 'SELECT 1']);
    expect(tsql('ALTER TABLE t DROP COLUMN a ALTER TABLE u ADD b int')).toEqual(['ALTER TABLE t DROP COLUMN a', 'ALTER TABLE u ADD b int']);
    expect(tsql('DECLARE c CURSOR FOR SELECT a FROM t FOR UPDATE OPEN c')).toEqual(['DECLARE c CURSOR FOR SELECT a FROM t FOR UPDATE', 'OPEN c']);
    expect(tsql('DROP TABLE IF EXISTS t CREATE TABLE t (a int) ON [PRIMARY]')).toEqual(['DROP TABLE IF EXISTS t', 'CREATE TABLE t (a int) ON [PRIMARY]']);
    expect(tsql('INSERT INTO t EXEC p EXEC q')).toEqual(['INSERT INTO t EXEC p', 'EXEC q']);
  });

  it('IF … ELSE, WHILE, BEGIN … END and TRY … CATCH count once with their inner statements; labels count; BEGIN TRAN does not open a block', () => {
    const sql = `BEGIN TRAN; UPDATE t SET a = CASE WHEN b = 1 THEN 2 END; IF @x = 1 BEGIN PRINT 'a'; PRINT 'b'; END ELSE PRINT 'c'; COMMIT
WHILE @i < 3 BEGIN SET @i += 1 IF @i = 2 BREAK END
BEGIN TRY SELECT 1/0 END TRY BEGIN CATCH THROW; END CATCH
done: RETURN`;
    const r = splitGeneric(sql, 'MsSql');
    expect(r.statements.map((s) => sql.slice(s.start, s.end).split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'BEGIN TRAN',
      'UPDATE t',
      'IF @x',
      'COMMIT',
      'WHILE @i',
      'BEGIN TRY',
      'done:',
      'RETURN',
    ]);
    const inner = (i: number): string[] => (r.statements[i].inner ?? []).map((x) => `${x.depth}:${sql.slice(x.start, x.end)}`);
    expect(inner(2)).toEqual(["1:PRINT 'a'", "1:PRINT 'b'", "1:PRINT 'c'"]);
    expect(inner(4)).toEqual(['1:SET @i += 1', '1:IF @i = 2 BREAK', '2:BREAK']);
    expect(inner(5)).toEqual(['1:SELECT 1/0', '1:THROW']);
  });

  it('a procedure or trigger body runs to the end of its batch; a function ends at its END', () => {
    const sql =
      'CREATE PROC p @a int AS SELECT @a RETURN\nSELECT 2\nGO\nCREATE FUNCTION f() RETURNS int AS BEGIN RETURN 1 END\nSELECT dbo.f()\nGO\nCREATE TRIGGER tr ON t AFTER INSERT, UPDATE AS IF UPDATE(a) PRINT 1';
    const r = splitGeneric(sql, 'MsSql');
    expect(r.statements.map((s) => sql.slice(s.start, s.end))).toEqual([
      'CREATE PROC p @a int AS SELECT @a RETURN\nSELECT 2',
      'CREATE FUNCTION f() RETURNS int AS BEGIN RETURN 1 END',
      'SELECT dbo.f()',
      'CREATE TRIGGER tr ON t AFTER INSERT, UPDATE AS IF UPDATE(a) PRINT 1',
    ]);
    expect(r.statements[0].inner).toHaveLength(3);
  });

  it('SQLCMD lines are directives, not statements', () => {
    const r = splitGeneric(':setvar db Sales\nUSE $(db)\n:r other.sql\nSELECT 1', 'MsSql');
    expect(r.statements).toHaveLength(2);
    expect((r.extras.tsqlDirectives as { kind: string }[]).map((d) => d.kind)).toEqual(['sqlcmd', 'sqlcmd']);
  });
});

describe('Snowflake', () => {
  it('keeps scripting blocks and $$ bodies whole; BEGIN TRANSACTION is a statement', () => {
    const sql = `begin transaction;\ninsert into t values (1);\ncommit;\nexecute immediate $$ begin select 1; end; $$;\ndeclare x int; begin x := 1; if (x > 0) then return x; end if; case when x = 1 then select 1; end case; end;\nbegin\n  let y := 2;\n  return y;\nend;\nselect 'it\\'s; ok'`;
    expect(texts(sql, 'Snowflake')).toHaveLength(7);
  });
  it('// comments never split', () => {
    expect(texts(`select 1 // a; b\n; select 2;`, 'Snowflake')).toEqual(['select 1', 'select 2']);
  });
  it('`//` after a URL scheme is not a comment: PUT file:///…, GET …, COPY … FROM s3://… end at their ;', () => {
    const sql = `PUT file:///tmp/sales.json @stage AUTO_COMPRESS=TRUE; COPY INTO sales FROM @stage;\nGET @stage file:///tmp/out/; COPY INTO t FROM s3://bucket/data/ STORAGE_INTEGRATION = s3_int; select 1 // a; b\n;`;
    expect(texts(sql, 'Snowflake')).toEqual([
      'PUT file:///tmp/sales.json @stage AUTO_COMPRESS=TRUE',
      'COPY INTO sales FROM @stage',
      'GET @stage file:///tmp/out/',
      'COPY INTO t FROM s3://bucket/data/ STORAGE_INTEGRATION = s3_int',
      'select 1',
    ]);
  });
});

describe('MySQL, BigQuery, SQLite, Oracle', () => {
  it('MySQL DELIMITER changes the terminator and is reported', () => {
    const sql = `DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END//\nDELIMITER ;\nSELECT "a;b" # c;\n;`;
    const r = splitGeneric(sql, 'MySql');
    expect(r.statements.map((s) => sql.slice(s.start, s.end))).toEqual(['CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END', 'SELECT "a;b"']);
    expect((r.extras.delimiterDirectives as unknown[]).length).toBe(2);
  });
  it('BigQuery procedure bodies are one statement', () => {
    const sql = 'CREATE OR REPLACE PROCEDURE ds.p(x INT64)\nBEGIN\n  DECLARE y INT64;\n  IF x > 0 THEN SET y = 1; END IF;\n  SELECT y;\nEND;\nCALL ds.p(1);';
    expect(texts(sql, 'BigQuery')).toHaveLength(2);
  });
  it('BigQuery triple-quoted strings and BEGIN … END blocks', () => {
    const sql = "select '''a;\nb'''; begin select 1; select 2; end; declare x int64 default 1; select `p.d.t`";
    expect(texts(sql, 'BigQuery')).toHaveLength(4);
  });
  it('SQLite triggers keep their BEGIN … END body', () => {
    const sql = 'create trigger tr after insert on t begin update u set a = 1; delete from v; end; select 1';
    expect(texts(sql, 'Sqlite')).toHaveLength(2);
  });
  it('Oracle SQL*Plus command lines are directives, not statements', () => {
    const sql = "SET SERVEROUTPUT ON\nPROMPT creating table;\nREM a remark\nCREATE TABLE t (a NUMBER);\n@other_script.sql\nSELECT 'set x' FROM dual;\nEXIT";
    const r = splitGeneric(sql, 'Oracle');
    expect(r.statements.map((s) => sql.slice(s.start, s.end))).toEqual(['CREATE TABLE t (a NUMBER)', "SELECT 'set x' FROM dual"]);
    expect((r.extras.sqlplusCommands as unknown[]).length).toBe(5);
  });
  it("Oracle PL/SQL units end at '/' lines; q-quotes never split", () => {
    const sql = "create or replace procedure p as begin null; null; end;\n/\nselect q'[a;b]' from dual;\nbegin\n  x;\nend;\n/\n";
    expect(texts(sql, 'Oracle')).toEqual(['create or replace procedure p as begin null; null; end;', "select q'[a;b]' from dual", 'begin\n  x;\nend;']);
  });
});

describe('end to end per dialect', () => {
  const cases: [string, string, string[]][] = [
    ['BigQuery', 'SELECT a FROM `p.d.t` WHERE b = 1; INSERT INTO d.t2 (a) VALUES (1);', ['SELECT', 'INSERT']],
    ['Sqlite', 'CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT); SELECT b FROM t WHERE a = 1;', ['CREATE TABLE', 'SELECT']],
    ['Oracle', 'CREATE OR REPLACE PROCEDURE p AS BEGIN NULL; END;\n/\nSELECT * FROM dual;', ['CREATE PROCEDURE', 'SELECT']],
    ['MySql', 'UPDATE t SET a = 1 WHERE b = 2; DELETE FROM u WHERE c = 3;', ['UPDATE', 'DELETE']],
  ];
  for (const [dialect, sql, types] of cases) {
    it(`${dialect}: units, types, parse status, schema`, async () => {
      const r = await parseScript(sql, dialect);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const c = r.artifact.content;
      expect(Value.Check(SqlContent, c)).toBe(true);
      expect(r.artifact.documentUnits).toBe(types.length);
      expect(c.statements.map((s: any) => s.type)).toEqual(types);
      if (dialect === 'Oracle') {
        // sqlparser-rs's Oracle dialect reads SQL, not PL/SQL: the procedure goes to the PL/SQL grammar.
        expect(c.statements.map((s: any) => s.parseStatus)).toEqual(['parsed', 'parsed']);
        expect(c.statements[0].parser).toMatch(/^antlr4ts-sql .* \(grammars-v4 PlSqlParser\)$/);
        expect(c.statements[1].parser).toMatch(/^sqlparser-rs .* \(oracle\)$/);
      } else {
        expect(c.parsedCount).toBe(types.length);
        expect(c.statements.every((s: any) => typeof s.parser === 'string')).toBe(true);
        expect(c.tables.length).toBeGreaterThan(0);
      }
    });
  }
});

describe('dialect option and bad input', () => {
  it('accepts the spellings the API allows, case-insensitively', () => {
    for (const v of ['PostgreSql', 'PostgreSQL', 'postgresql', 'MsSql', 'MSSQL', 'Snowflake', 'MySql', 'BigQuery', 'Sqlite', 'Oracle'])
      expect(normalizeDialect(v)).not.toBeNull();
    expect(normalizeDialect('Cobol')).toBeNull();
  });
  it('fails clearly without a dialect, for an unknown one, and for binary input', async () => {
    const none = await parseScript('select 1', '');
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.message).toMatch(/sqlDialect/);
    const bad = await parseScript('select 1', 'Cobol');
    expect(bad.ok).toBe(false);
    const bin = await parseScript(Buffer.from([0x50, 0x4b, 3, 4, 0, 0, 0, 0, 0x10, 0x00, 0xff, 0x00, 0x00, 0x01]), 'MySql');
    expect(bin.ok).toBe(false);
    if (!bin.ok) expect(bin.message).toMatch(/binary/);
  });
  it('decodes UTF-16 with a BOM and Windows-1252', async () => {
    const u16 = await parseScript(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("select 'ü'; select 2;", 'utf16le')]), 'MsSql');
    expect(u16.ok && u16.artifact.content.encoding).toBe('utf-16le');
    const latin = await parseScript(Buffer.from("select 'caf\xe9 cr\xe8me br\xfbl\xe9e \xe0 la fran\xe7aise'; select 2;", 'latin1'), 'MySql');
    expect(latin.ok).toBe(true);
    if (latin.ok) {
      expect(latin.artifact.documentUnits).toBe(2);
      expect(latin.artifact.content.statements[0].text).toContain('café');
    }
  });
  it('a very long statement is parsed but its AST is not written', async () => {
    const values = Array.from({ length: 30000 }, (_, i) => `(${i}, 'row ${i}')`).join(',\n');
    const r = await parseScript(`insert into big (a, b) values\n${values};\nselect 1;`, 'PostgreSql');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [ins, sel] = r.artifact.content.statements;
    expect(ins.parseStatus).toBe('parsed');
    expect(ins.astOmitted).toBe(true);
    expect(ins.ast).toBeUndefined();
    expect(ins.tables).toEqual(['big']);
    expect(sel.ast).toBeDefined();
  });
  it('an empty file has no statements and a warning', async () => {
    const r = await parseScript('-- nothing here\n', 'Snowflake');
    expect(r.ok && r.artifact.documentUnits).toBe(0);
    expect(r.ok && r.artifact.warnings.length).toBe(1);
  });
});

describe('compound statements count once, their inner statements listed beneath', () => {
  const cases: [string, string, number, string[]][] = [
    [
      'Snowflake',
      'EXECUTE IMMEDIATE $$\nBEGIN\n  SELECT 1;\n  IF (x > 0) THEN\n    RETURN 1;\n  END IF;\nEND;\n$$;\nSELECT 2;',
      2,
      ['1:SELECT 1', '1:IF (x > 0) THEN\n    RETURN 1;\n  END IF', '2:RETURN 1'],
    ],
    [
      'BigQuery',
      'CREATE PROCEDURE ds.p(x INT64)\nBEGIN\n  DECLARE y INT64;\n  LOOP\n    SET y = y + 1;\n    IF y > x THEN LEAVE; END IF;\n  END LOOP;\nEND;\nCALL ds.p(1);',
      2,
      [
        '1:DECLARE y INT64',
        '1:LOOP\n    SET y = y + 1;\n    IF y > x THEN LEAVE; END IF;\n  END LOOP',
        '2:SET y = y + 1',
        '2:IF y > x THEN LEAVE; END IF',
        '3:LEAVE',
      ],
    ],
    [
      'MySql',
      'DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; WHILE x < 3 DO SET x = x + 1; END WHILE; END//\nDELIMITER ;\nCALL p();',
      2,
      ['1:SELECT 1', '1:WHILE x < 3 DO SET x = x + 1; END WHILE', '2:SET x = x + 1'],
    ],
    [
      'Oracle',
      'CREATE OR REPLACE PROCEDURE p AS\n  v NUMBER;\nBEGIN\n  SELECT 1 INTO v FROM dual;\n  FOR r IN (SELECT 1 FROM dual) LOOP\n    NULL;\n  END LOOP;\nEND;\n/\nSELECT 1 FROM dual;',
      2,
      ['1:SELECT 1 INTO v FROM dual', '1:FOR r IN (SELECT 1 FROM dual) LOOP\n    NULL;\n  END LOOP', '2:NULL'],
    ],
    ['Sqlite', 'CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE u SET a = 1; DELETE FROM v; END; SELECT 1;', 2, ['1:UPDATE u SET a = 1', '1:DELETE FROM v']],
    [
      'PostgreSql',
      "DO $$ BEGIN PERFORM 1; IF true THEN RAISE NOTICE 'x'; END IF; END $$;\nSELECT 1;",
      2,
      ['1:PERFORM 1', "1:IF true THEN RAISE NOTICE 'x'; END IF", "2:RAISE NOTICE 'x'"],
    ],
  ];
  for (const [dialect, sql, units, inner] of cases) {
    it(`${dialect}`, async () => {
      const r = await parseScript(sql, dialect);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const c = r.artifact.content;
      expect(r.artifact.documentUnits).toBe(units);
      expect(c.statements[0].innerStatements.map((x: any) => `${x.depth}:${x.text}`)).toEqual(inner);
      expect(c.statements[1].innerStatements).toBeUndefined();
      expect(Value.Check(SqlContent, c)).toBe(true);
    });
  }
});
