// Snowflake Scripting blocks (src/formats/sql/snowflake-scripting.ts), read by the Snowflake
// object grammar: anonymous blocks, task bodies and LANGUAGE SQL procedure bodies, written here
// from the Snowflake Scripting reference's syntax. Inner SQL goes to the dialect's real parsers.
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineResult, ParseFailure } from '../../../src/formats/sql/engine.js';
import { snowflakeGrammar, statementsOf } from './script.js';

let parse: (sql: string) => EngineResult & { ast: any };
let rejection: (sql: string) => ParseFailure;

beforeAll(async () => {
  ({ parse, rejection } = await snowflakeGrammar());
});
const sqlparser = expect.stringMatching(/^sqlparser-rs /);

describe('anonymous blocks', () => {
  const block = [
    'DECLARE',
    '  shipped INTEGER DEFAULT 0;',
    '  cap NUMBER(10, 2) := 250;',
    '  late CURSOR FOR SELECT id, weight FROM ship.parcels WHERE late;',
    '  depots RESULTSET DEFAULT (SELECT code FROM ship.depots);',
    "  over_cap EXCEPTION (-20001, 'over the cap');",
    'BEGIN',
    "  LET note VARCHAR := 'start';",
    '  FOR p IN late DO',
    '    shipped := shipped + 1;',
    '    IF (p.weight > cap * 2) THEN',
    '      INSERT INTO ship.heavy (id) VALUES (1);',
    '    ELSEIF (p.weight > cap) THEN',
    '      NULL;',
    '    ELSE',
    '      CONTINUE;',
    '    END IF;',
    '  END FOR;',
    '  FOR k IN REVERSE 1 TO 3 LOOP',
    '    DELETE FROM ship.slots WHERE slot = 1;',
    '  END LOOP;',
    '  WHILE (shipped > 900) DO',
    '    RAISE over_cap;',
    '  END WHILE;',
    '  REPEAT',
    '    shipped := shipped - 1;',
    '  UNTIL (shipped <= 0)',
    '  END REPEAT;',
    '  LOOP',
    '    BREAK drain;',
    '  END LOOP drain;',
    '  CASE (note)',
    "    WHEN 'start' THEN UPDATE ship.runs SET started = TRUE;",
    '    ELSE NULL;',
    '  END CASE;',
    '  CASE',
    "    WHEN shipped = 0 THEN RETURN 'nothing';",
    '  END;',
    '  BEGIN',
    '    OPEN late;',
    '    FETCH late INTO shipped, cap;',
    '    CLOSE late;',
    '  END;',
    '  RETURN shipped;',
    'EXCEPTION',
    '  WHEN statement_error OR expression_error THEN',
    "    RETURN 'failed';",
    '  WHEN OTHER THEN',
    '    RAISE;',
    'END',
  ].join('\n');

  it('DECLARE … BEGIN … EXCEPTION … END: one BLOCK statement with its declarations, statements, handlers and the union of its tables', () => {
    const r = parse(block);
    expect(r.type).toBe('BLOCK');
    expect(r.tables).toEqual(['ship.parcels', 'ship.depots', 'ship.heavy', 'ship.slots', 'ship.runs']);
    expect(r.ast.statement).toBe('BLOCK');
    expect(r.ast.declare).toMatchObject([
      { kind: 'variable', name: 'shipped', type: 'INTEGER', value: { text: '0', parser: sqlparser } },
      { kind: 'variable', name: 'cap', type: 'NUMBER(10, 2)', value: { text: '250' } },
      { kind: 'cursor', name: 'late', query: { type: 'SELECT', parser: sqlparser } },
      { kind: 'resultset', name: 'depots', query: { text: 'SELECT code FROM ship.depots', type: 'SELECT' } },
      { kind: 'exception', name: 'over_cap', number: -20001, message: 'over the cap' },
    ]);
    expect(r.ast.body.map((s: any) => s.kind)).toEqual(['let variable', 'for', 'for', 'while', 'repeat', 'loop', 'case', 'case', 'block', 'return']);
    const [, cursorLoop, counterLoop, , , loop] = r.ast.body;
    expect(cursorLoop).toMatchObject({ variable: 'p', cursor: 'late' });
    expect(cursorLoop.body[1].branches.map((b: any) => b.condition.text)).toEqual(['p.weight > cap * 2', 'p.weight > cap']);
    expect(cursorLoop.body[1].branches[0].body[0]).toMatchObject({ kind: 'sql', type: 'INSERT', parser: sqlparser });
    expect(counterLoop).toMatchObject({ variable: 'k', reverse: true, from: { text: '1' }, to: { text: '3' } });
    expect(loop).toMatchObject({ label: 'drain', body: [{ kind: 'break', label: 'drain' }] });
    expect(r.ast.body[8].block.body.map((s: any) => s.kind)).toEqual(['open', 'fetch', 'close']);
    expect(r.ast.body[8].block.body[1]).toEqual({ kind: 'fetch', cursor: 'late', into: ['shipped', 'cap'] });
    expect(r.ast.exception).toMatchObject([{ when: ['statement_error', 'expression_error'] }, { when: ['OTHER'], body: [{ kind: 'raise' }] }]);
  });

  it('BEGIN LET … END, and a value in parentheses that is a query', () => {
    const r = parse('BEGIN\n  LET total := (SELECT COUNT(*) FROM ship.parcels);\n  total := total * 2;\n  RETURN total;\nEND');
    expect(r.type).toBe('BLOCK');
    expect(r.ast.declare).toEqual([]);
    expect(r.ast.body.map((s: any) => s.kind)).toEqual(['let variable', 'assign', 'return']);
    expect(r.tables).toEqual(['ship.parcels']);
  });

  it('an inner statement rejected only for its :binds is recorded as not parsed as written, with the reading without them', () => {
    const r = parse('DECLARE n INTEGER; BEGIN\n  SELECT COUNT(*) INTO :n FROM ship.parcels WHERE weight > :n;\n  RETURN n;\nEND');
    expect(r.ast.body[0]).toMatchObject({ kind: 'sql', parser: null, readWithoutBinds: sqlparser, type: 'SELECT' });
    expect(r.ast.body[0].text).toBe('SELECT COUNT(*) INTO :n FROM ship.parcels WHERE weight > :n');
    expect(r.tables).toEqual(['ship.parcels']);
    // the bind is not a column
    expect(r.columns).not.toContain('n');
  });

  it('BEGIN [ TRANSACTION | WORK ] [ NAME t ] is still a transaction', () => {
    for (const sql of ['BEGIN', 'BEGIN TRANSACTION', 'BEGIN WORK', 'BEGIN NAME t1']) expect(parse(sql).type).toBe('BEGIN TRANSACTION');
    // Inside a block, BEGIN TRANSACTION; is a statement of the block.
    expect(parse('BEGIN BEGIN TRANSACTION; COMMIT; END').ast.body.map((s: any) => s.type)).toEqual(['BEGIN TRANSACTION', 'COMMIT']);
  });
});

describe('tasks and procedures', () => {
  it('a task whose body is DECLARE … BEGIN … END (statements only this grammar reads included)', () => {
    const r = parse(
      'CREATE OR REPLACE TASK ops.tick WAREHOUSE = ops_wh AS DECLARE k INTEGER; BEGIN k := 2; ALTER PIPE ops.feed REFRESH; INSERT INTO ops.log SELECT :k; END',
    );
    expect(r.type).toBe('CREATE TASK');
    expect(r.ast.body).toMatchObject({ statement: 'BLOCK', declare: [{ name: 'k' }] });
    expect(r.ast.body.body.map((s: any) => s.type ?? s.kind)).toEqual(['assign', 'ALTER PIPE', 'INSERT']);
    expect(r.ast.body.body[1].parser).toBe('docparse Snowflake object grammar');
    expect(r.tables).toEqual(['ops.log']);
    expect(parse('ALTER TASK ops.tick MODIFY AS BEGIN ALTER WAREHOUSE w SUSPEND; END').ast.body.statement).toBe('BLOCK');
  });

  it('a LANGUAGE SQL procedure with a bare block body (Snowsight), and with a $$ body returning a table', () => {
    const bare = parse(
      'CREATE OR REPLACE PROCEDURE ship.count_heavy(min_weight NUMBER DEFAULT 10) RETURNS INTEGER NOT NULL LANGUAGE SQL EXECUTE AS CALLER\nAS\nBEGIN\n  LET n INTEGER := (SELECT COUNT(*) FROM ship.parcels WHERE weight > :min_weight);\n  RETURN n;\nEND',
    );
    expect(bare.type).toBe('CREATE PROCEDURE');
    expect(bare.ast).toMatchObject({
      name: 'ship.count_heavy',
      orReplace: true,
      args: [{ name: 'min_weight', type: 'NUMBER', default: '10' }],
      returns: { type: 'INTEGER', notNull: true },
      properties: { LANGUAGE: 'SQL', 'EXECUTE AS': 'CALLER' },
      body: { statement: 'BLOCK' },
    });
    expect(bare.tables).toEqual(['ship.parcels']);
    const dollar =
      'CREATE PROCEDURE ship.heavy() RETURNS TABLE (id INTEGER) LANGUAGE SQL AS $$\nDECLARE rs RESULTSET DEFAULT (SELECT id FROM ship.parcels);\nBEGIN\n  RETURN TABLE(rs);\nEND;\n$$';
    const d = parse(dollar);
    expect(d.ast.returns).toEqual({ table: [{ name: 'id', type: 'INTEGER' }] });
    expect(d.ast.body.body[0]).toMatchObject({ kind: 'return', value: { text: 'rs', table: true } });
    // An error inside the $$ body is placed in the statement's text.
    const bad = dollar.replace('RETURN TABLE(rs);', 'RETURN TABLE(rs)');
    expect(rejection(bad)).toMatchObject({
      message: expect.stringMatching(/^expected ';' after the RETURN statement, found 'END'/),
      offset: bad.indexOf('END;'),
    });
    expect(rejection('CREATE PROCEDURE p() RETURNS INT LANGUAGE JAVASCRIPT AS BEGIN RETURN 1; END').message).toMatch(/^expected SQL after LANGUAGE/);
  });
});

describe('malformed blocks are rejected with what was expected and where', () => {
  const cases: [string, string, RegExp, number][] = [
    ['an unknown statement keyword', 'BEGIN FROBNICATE x; END', /^no Snowflake parser accepts this statement of the block 'FROBNICATE x'/, 6],
    ['IF without THEN', 'BEGIN IF (1 = 1) SELECT 1; END IF; END', /^expected THEN, found 'SELECT'/, 17],
    ['WHILE without DO', 'BEGIN WHILE (TRUE) SELECT 1; END WHILE; END', /^expected DO or LOOP after the WHILE condition, found 'SELECT'/, 19],
    ['FOR without DO', 'BEGIN FOR i IN 1 TO 3 SELECT 1; END FOR; END', /^expected DO or LOOP after 3 SELECT 1, found ';'/, 30],
    ['END without IF', 'BEGIN IF (1 = 1) THEN SELECT 1; END; END', /^expected IF after END, found ';'/, 35],
    ['an END too many', 'BEGIN SELECT 1; END; END', /^expected end of statement after the block, found 'END'/, 21],
    ['garbage after END', 'BEGIN SELECT 1; END garbage', /^expected end of statement after the block, found 'garbage'/, 20],
    ['a missing END', 'DECLARE x INT; BEGIN x := 1;', /^expected END, found end of statement/, 28],
    ["a statement without ';'", 'DECLARE x INT; BEGIN SELECT 1 END', /^expected ';' after the SELECT statement, found end of statement/, 33],
    ['an empty block', 'BEGIN END', /^expected a statement before END/, 6],
    ['a condition without parentheses', 'BEGIN IF x > 1 THEN RETURN 1; END IF; END', /^expected '\(' opening the condition after IF, found 'x'/, 9],
    ['LET without a value', 'BEGIN LET x; END', /^expected DEFAULT or := after LET x, found ';'/, 11],
  ];
  it.each(cases)('%s', (_what, sql, message, offset) => {
    const f = rejection(sql);
    expect(f.message).toMatch(message);
    expect(f.offset).toBe(offset);
  });

  it('blocks or IFs nested past 100 levels are a ParseFailure, not a RangeError', () => {
    const blocks = `${'BEGIN '.repeat(5000)}SELECT 1;${' END;'.repeat(4999)} END`;
    expect(rejection(blocks)).toMatchObject({
      message: expect.stringMatching(/^blocks and control statements nested deeper than 100 levels/),
      offset: 101 * 6,
    });
    const ifs = `BEGIN ${'IF (TRUE) THEN '.repeat(5000)}SELECT 1;${' END IF;'.repeat(5000)} END`;
    expect(rejection(ifs).message).toMatch(/^blocks and control statements nested deeper than 100 levels/);
  });
});

describe('end to end: a block is one unit through parseSql', () => {
  it('the splitter cuts the block as one statement, the chain hands it to the grammar, the statements around it are their own', async () => {
    const sql = [
      'CREATE TABLE ship.parcels (id INT, weight NUMBER);',
      'DECLARE',
      '  heavy INTEGER DEFAULT 0;',
      'BEGIN',
      '  FOR i IN 1 TO 3 DO',
      '    heavy := heavy + (SELECT COUNT(*) FROM ship.parcels WHERE weight > 100);',
      '  END FOR;',
      '  IF (heavy > 0) THEN',
      '    INSERT INTO ship.alerts SELECT CURRENT_TIMESTAMP();',
      '  END IF;',
      '  RETURN heavy;',
      'END;',
      'SELECT id FROM ship.parcels;',
    ].join('\n');
    const { content, units } = await statementsOf(sql, 'Snowflake');
    expect(units).toBe(3);
    expect(content.statements.map((s: any) => [s.type, s.parseStatus, s.parser])).toEqual([
      ['CREATE TABLE', 'parsed', sqlparser],
      ['BLOCK', 'parsed', 'docparse Snowflake object grammar'],
      ['SELECT', 'parsed', sqlparser],
    ]);
    expect(content.statements[1].tables).toEqual(['ship.parcels', 'ship.alerts']);
    expect(content.statements[1].ast.body.map((s: any) => s.kind)).toEqual(['for', 'if', 'return']);
  });
});
