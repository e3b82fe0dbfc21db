// Per-statement parser fallbacks and the splitting rules that feed them, on generated scripts
// (no corpus needed): what a user sees per statement — its type, tables, columns and which
// parser produced the AST — when the dialect's first parser rejects the statement.
import { describe, expect, it } from 'vitest';
import { statementsOf } from './script.js';

const view = (s: any): [string, string, string | null, string[]] => [s.type, s.parseStatus, s.parser, s.tables];

describe('T-SQL: the grammars-v4 T-SQL grammar takes what sqlparser-rs and node-sql-parser reject', () => {
  it('TRY … CATCH, cursors, compound assignment and procedures with parameters get a type, tables and columns from its parse tree', async () => {
    const sql = [
      'BEGIN TRY\n  DELETE FROM Production.Product WHERE ProductID = 980;\nEND TRY\nBEGIN CATCH\n  SELECT ERROR_NUMBER() AS ErrorNumber;\nEND CATCH',
      'DECLARE abc CURSOR GLOBAL SCROLL FOR SELECT * FROM Sales.SalesPerson',
      "UPDATE Production.Product SET ListPrice += @NewPrice WHERE Color = N'Red'",
      'CREATE PROCEDURE dbo.FindEmployee @EmpLName char(20) AS SELECT p.FirstName FROM Person.Person p WHERE p.LastName LIKE @EmpLName',
    ].join('\nGO\n');
    const { content, units } = await statementsOf(sql, 'MsSql');
    expect(units).toBe(4);
    const grammar = /^antlr4ts-sql .* \(grammars-v4 TSqlParser\)$/;
    expect(content.statements.map(view)).toEqual([
      ['TRY CATCH', 'parsed', expect.stringMatching(grammar), ['Production.Product']],
      ['DECLARE CURSOR', 'parsed', expect.stringMatching(grammar), ['Sales.SalesPerson']],
      ['UPDATE', 'parsed', expect.stringMatching(grammar), ['Production.Product']],
      ['CREATE PROCEDURE', 'parsed', expect.stringMatching(grammar), ['Person.Person']],
    ]);
    expect(content.statements[2].columns).toEqual(['ListPrice', 'Color']);
    expect(content.statements[3].columns).toEqual(['p.FirstName', 'p.LastName']);
    // The AST is the grammar's parse tree, rooted at the statement's rule.
    expect(Object.keys(content.statements[2].ast)).toEqual(['update_statement']);
    expect(content.parsers).toEqual({ [content.statements[0].parser]: 4 });
  });

  it("node-sql-parser's reading of `word word` as an assignment without '=' is not taken as a parse", async () => {
    const { content } = await statementsOf('GOTO Branch_Three\nBranch_Three:\nPRINT 1', 'MsSql');
    const [jump, label] = content.statements;
    expect(view(jump)).toEqual(['GOTO', 'parsed', expect.stringMatching(/TSqlParser/), []]);
    expect(view(label)).toEqual(['LABEL', 'parsed', expect.stringMatching(/TSqlParser/), []]);
    expect(content.statements.some((s: any) => /node-sql-parser/.test(s.parser ?? ''))).toBe(false);
  });
});

describe('a statement too deeply nested for every parser', () => {
  it('is kept with a parse error, and the statements around it still parse', async () => {
    const deep = `SELECT ${'('.repeat(5000)}1${')'.repeat(5000)}`;
    const { content, units } = await statementsOf(`SELECT a FROM t\nGO\n${deep}\nGO\nSELECT b FROM u`, 'MsSql');
    expect(units).toBe(3);
    expect(content.statements.map((s: any) => s.parseStatus)).toEqual(['parsed', 'error', 'parsed']);
    expect(content.statements[1].parseError.message.length).toBeGreaterThan(0);
  });
});

describe('MySQL: stored programs are one statement; the MySQL Workbench grammar takes what the others reject', () => {
  it('a procedure and a trigger without DELIMITER keep their BEGIN … END bodies whole, with or without the closing ;', async () => {
    const sql = [
      'CREATE PROCEDURE p(IN x INT)',
      'BEGIN',
      '  DECLARE y INT DEFAULT 0;',
      '  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; END;',
      '  IF x > 0 THEN SET y = x; END IF;',
      '  INSERT INTO log_t (v) VALUES (y);',
      'END',
      'CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END;',
      'SELECT a FROM t;',
    ].join('\n');
    const { content, units } = await statementsOf(sql, 'MySql');
    expect(units).toBe(3);
    const [proc, trig, sel] = content.statements;
    expect(proc.text.startsWith('CREATE PROCEDURE p(IN x INT)\nBEGIN')).toBe(true);
    expect(proc.text.endsWith('INSERT INTO log_t (v) VALUES (y);\nEND')).toBe(true);
    expect(proc.terminator).toBeNull();
    expect(proc.innerStatements.filter((x: any) => x.depth === 1).map((x: any) => x.type)).toEqual(['DECLARE', 'DECLARE', 'IF', 'INSERT']);
    expect([proc.type, proc.parseStatus, proc.tables]).toEqual(['CREATE PROCEDURE', 'parsed', ['log_t']]);
    expect([trig.type, trig.parseStatus, trig.terminator]).toEqual(['CREATE TRIGGER', 'parsed', ';']);
    expect(view(sel)).toEqual(['SELECT', 'parsed', expect.stringMatching(/^sqlparser-rs .* \(mysql\)$/), ['t']]);
  });

  it('GET DIAGNOSTICS, SIGNAL and MySQL 8 account statements are parsed by the Workbench grammar', async () => {
    const sql =
      "GET DIAGNOSTICS CONDITION 1 @p1 = RETURNED_SQLSTATE, @p2 = MESSAGE_TEXT;\nALTER USER 'u'@'%' IDENTIFIED BY 'pw' RETAIN CURRENT PASSWORD;\nALTER TABLE t1 ALTER INDEX i1 INVISIBLE;";
    const { content } = await statementsOf(sql, 'MySql');
    const grammar = expect.stringMatching(/^antlr4ts-sql .* \(MySQL Workbench grammar\)$/);
    expect(content.statements.map(view)).toEqual([
      ['GET DIAGNOSTICS', 'parsed', grammar, []],
      ['ALTER USER', 'parsed', grammar, []],
      ['ALTER TABLE', 'parsed', grammar, ['t1']],
    ]);
  });
});

describe('Snowflake: polyglot-sql takes table options, DIRECTED joins and function forms the others reject', () => {
  it('gives the type, tables and columns from its tree, and says it parsed them', async () => {
    const sql = [
      'create table orders (id int, customer_id int foreign key references customers (id) deferrable)',
      'select o.id, c.name from sales.orders o inner directed join sales.customers c on o.customer_id = c.id',
      'create function area(r float) returns table (a float) language javascript immutable as $$ return [] $$',
    ].join(';\n');
    const { content, units } = await statementsOf(sql, 'Snowflake');
    expect(units).toBe(3);
    const polyglot = expect.stringMatching(/^polyglot-sql \S+ \(Snowflake\)$/);
    expect(content.statements.map(view)).toEqual([
      ['CREATE TABLE', 'parsed', polyglot, ['orders', 'customers']],
      ['SELECT', 'parsed', polyglot, ['sales.orders', 'sales.customers']],
      ['CREATE FUNCTION', 'parsed', polyglot, []],
    ]);
    expect(content.statements[1].columns).toEqual(['o.id', 'c.name', 'o.customer_id', 'c.id']);
    // Virtual columns sqlparser-rs's Snowflake rules reject, with or without a session variable.
    const virtual = await statementsOf(
      'create table t4 (f1 number, f2 number, f3 number as (hash(f1, f2)));\ncreate table t5 (f1 number, f3 number as (f1 + $v));',
      'Snowflake',
    );
    expect(virtual.content.statements.map(view)).toEqual([
      ['CREATE TABLE', 'parsed', polyglot, ['t4']],
      ['CREATE TABLE', 'parsed', polyglot, ['t5']],
    ]);
    expect(virtual.content.statements[0].columns).toEqual(['f1', 'f2']);
    // The AST is polyglot's expression tree without spans or empty fields.
    expect(Object.keys(content.statements[1].ast)).toEqual(['select']);
    expect(JSON.stringify(content.statements[1].ast)).not.toContain('"span"');
  });

  it('what polyglot keeps as unparsed text or reads as a bare expression is not taken as a parse', async () => {
    const sql = [
      'create task t1 nonsense (( )) = = , as select 1',
      "create file format ff type = 'CSV' skip_header = 1 flavour = 'sour'",
      'frobnicate everything',
      'create task t2 as frobnicate everything',
      'copy into t from from @s',
    ].join(';\n');
    const { content } = await statementsOf(sql, 'Snowflake');
    expect(content.statements).toHaveLength(5);
    for (const s of content.statements) {
      expect(s.parseStatus).toBe('error');
      expect(s.parser).toBeNull();
    }
  });

  it("a statement no parser accepts shows the error of the parser that read furthest: the object grammar's, naming the property", async () => {
    const { content } = await statementsOf("select 1;\ncreate warehouse w warehouse_size = xsmall speed = 11 comment = 'x'", 'Snowflake');
    const bad = content.statements[1];
    expect(bad.parseStatus).toBe('error');
    expect(bad.parseError.message).toMatch(/unknown WAREHOUSE property SPEED/);
    expect([bad.parseError.line, bad.parseError.column]).toEqual([2, 44]);
  });

  it("a pipe's tables are its COPY INTO target's", async () => {
    const { content } = await statementsOf(
      "create pipe p auto_ingest = true as copy into raw.events from @raw.landing file_format = (type = 'JSON')",
      'Snowflake',
    );
    expect(view(content.statements[0])).toEqual(['CREATE PIPE', 'parsed', 'docparse Snowflake object grammar', ['raw.events']]);
  });
});

describe('Snowflake: what a statement reads and writes, as sqlparser-rs parses it', () => {
  it('COPY to and from stages, CLONE and LIKE sources, a stage read like a table, dynamic tables and BEGIN … END blocks typed as such', async () => {
    const sql = [
      'copy into @unload/daily/ from sales.orders',
      "copy into sales.orders from @landing/2026/ file_format = (type = 'JSON')",
      'create table orders_dev clone sales.orders',
      'create table orders_empty like sales.orders',
      'create table raw_rows as select $1 as v from @landing',
      "create dynamic table daily target_lag = '1 hour' warehouse = wh as select d, count(*) from sales.orders group by d",
      'begin\n  insert into audit select * from sales.orders;\nend',
      'begin transaction',
    ].join(';\n');
    const { content } = await statementsOf(sql, 'Snowflake');
    const sqlparser = expect.stringMatching(/^sqlparser-rs .* \(snowflake\)$/);
    expect(content.statements.map(view)).toEqual([
      ['COPY INTO', 'parsed', sqlparser, ['sales.orders']],
      ['COPY INTO', 'parsed', sqlparser, ['sales.orders']],
      ['CREATE TABLE', 'parsed', sqlparser, ['orders_dev', 'sales.orders']],
      ['CREATE TABLE', 'parsed', sqlparser, ['orders_empty', 'sales.orders']],
      ['CREATE TABLE', 'parsed', sqlparser, ['raw_rows']],
      ['CREATE DYNAMIC TABLE', 'parsed', sqlparser, ['daily', 'sales.orders']],
      ['BLOCK', 'parsed', sqlparser, ['audit', 'sales.orders']],
      ['BEGIN TRANSACTION', 'parsed', sqlparser, []],
    ]);
  });

  it("SHOW is read by the object grammar's list of SHOW commands: sqlparser-rs's reading of any words after SHOW as a setting name is not taken", async () => {
    const { content } = await statementsOf("show warehouses like 'etl%';\nshow grants to role analyst;\nshow nonsense", 'Snowflake');
    expect(content.statements.map(view)).toEqual([
      ['SHOW WAREHOUSES', 'parsed', 'docparse Snowflake object grammar', []],
      ['SHOW GRANTS', 'parsed', 'docparse Snowflake object grammar', []],
      [expect.any(String), 'error', null, []],
    ]);
  });

  it("T-SQL's @table variables stay tables", async () => {
    const { content } = await statementsOf('DECLARE @t TABLE (id int);\nSELECT id FROM @t', 'MsSql');
    expect(content.statements[1].tables).toEqual(['@t']);
  });
});

describe('Snowflake: loose readings are refused', () => {
  it('an embedded expression must be one expression, a dynamic table a query, a pipe a COPY into a table, a SQL procedure a block', async () => {
    const refused = [
      'create task t warehouse = w when x from secret_tbl where y = 1 as select 1',
      'create masking policy m as (v string) returns string -> v from users where 1 = 1',
      'alter dynamic table d cluster by (a from b)',
      "create dynamic table d (a) target_lag = '1 minute' warehouse = w as drop table x",
      'create pipe p as copy into @s from t',
      'create procedure p() returns int language sql as $$ this is not sql $$',
      'create procedure p() returns int as begin frobnicate; end',
    ];
    const { content } = await statementsOf(refused.join(';\n'), 'Snowflake');
    expect(content.statements.map((s: any) => [s.parseStatus, s.tables])).toEqual(refused.map(() => ['error', []]));
  });

  it('statements embedded in statements past 8 levels are refused; two levels parse', async () => {
    const deep = 'create task t as '.repeat(2000) + 'select 1';
    const { content } = await statementsOf(`${deep};\ncreate task t as create task u as select 1`, 'Snowflake');
    expect(content.statements.map((s: any) => [s.type, s.parseStatus])).toEqual([
      ['CREATE TASK', 'error'],
      ['CREATE TASK', 'parsed'],
    ]);
  });

  it('DROP of a stage or schema names no table; TRUNCATE names its table', async () => {
    const { content } = await statementsOf('drop stage landing;\ndrop schema raw;\ndrop view v1;\ntruncate table sales.orders', 'Snowflake');
    expect(content.statements.map((s: any) => s.tables)).toEqual([[], [], ['v1'], ['sales.orders']]);
  });

  it('a URL with a long run of slashes is read in one step and still ends at its ;', async () => {
    const { units } = await statementsOf(`put file:${'/'.repeat(200_000)}tmp/x.csv @s;\nselect 1`, 'Snowflake');
    expect(units).toBe(2);
  });
});

describe('Oracle: PL/SQL units by the grammars-v4 PL/SQL grammar, the SQL inside them statement by statement', () => {
  it('a procedure is parsed whole; its SQL statements are parsed on their own, its PL/SQL statements are not', async () => {
    const sql =
      'CREATE OR REPLACE PROCEDURE p AS\n  v NUMBER;\nBEGIN\n  SELECT COUNT(*) INTO v FROM emp;\n  UPDATE dept SET n = v;\n  FOR r IN (SELECT 1 FROM dual) LOOP\n    NULL;\n  END LOOP;\nEND;\n/\nSELECT * FROM dual;';
    const { content, units } = await statementsOf(sql, 'Oracle');
    expect(units).toBe(2);
    const [proc, sel] = content.statements;
    expect(view(proc)).toEqual([
      'CREATE PROCEDURE',
      'parsed',
      expect.stringMatching(/^antlr4ts-sql .* \(grammars-v4 PlSqlParser\)$/),
      expect.arrayContaining(['emp', 'dept']),
    ]);
    expect(proc.innerStatements.map((x: any) => [x.text.split('\n')[0], x.parseStatus, x.tables])).toEqual([
      ['SELECT COUNT(*) INTO v FROM emp', 'parsed', ['emp']],
      ['UPDATE dept SET n = v', 'parsed', ['dept']],
      ['FOR r IN (SELECT 1 FROM dual) LOOP', 'error', []],
      ['NULL', 'error', []],
    ]);
    expect(view(sel)).toEqual(['SELECT', 'parsed', expect.stringMatching(/^sqlparser-rs .* \(oracle\)$/), ['dual']]);
  });
});
