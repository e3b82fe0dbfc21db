// PostgreSQL scripts are split over PostgreSQL's own tokens; our lexer stands in for
// libpg-query's scanner wherever it reads a stretch exactly as the scanner does (pg-tokens.ts),
// ten times faster. The statement lists must be the ones the scanner alone gives — statements,
// terminators, warnings, psql meta-commands — on every corpus file, on scripts built from the
// constructs where the two lexers could part (prefixed strings, dollar tags, numbers followed
// by letters, operators our lexer reads as words, control characters, lone carriage returns),
// and on a pg_dump INSERT larger than a scanner piece.
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { largeInsertDump } from '../../../bench/fuzz/generators/sql-large.mjs';
import { loadPostgres, splitPostgres } from '../../../src/formats/sql/index.js';
import { hasSqlCorpus, sqlCorpusFile, sqlManifest } from './corpus-dir.js';

beforeAll(async () => {
  await loadPostgres();
});

/** The split with our lexer where exact, and with the scanner alone, as comparable values. */
function bothWays(text: string): { mixed: unknown; scanner: unknown; statements: string[] } {
  const view = (r: ReturnType<typeof splitPostgres>): unknown => [r.statements, r.warnings, r.extras];
  const mixed = splitPostgres(text);
  return { mixed: view(mixed), scanner: view(splitPostgres(text, { scannerOnly: true })), statements: mixed.statements.map((s) => text.slice(s.start, s.end)) };
}

describe('PostgreSQL statements: our lexer where exact = libpg-query’s scanner', () => {
  it.skipIf(!hasSqlCorpus)('every PostgreSQL corpus file, and all of them joined (pieces cut mid-file), splits as with the scanner alone', () => {
    const files = sqlManifest().filter((m) => m.dialect === 'postgresql');
    expect(files.length).toBeGreaterThanOrEqual(28);
    const texts: string[] = [];
    for (const m of files) {
      const text = fs.readFileSync(sqlCorpusFile(m.file), 'utf8');
      texts.push(text);
      const r = bothWays(text);
      expect(r.mixed, m.file).toEqual(r.scanner);
    }
    const joined = bothWays(texts.join('\n;\n'));
    expect(joined.mixed).toEqual(joined.scanner);
  });

  it('where the lexers could part, the scanner decides', () => {
    const cases: [string, string[]][] = [
      // A dollar tag with a non-ASCII letter: one string to PostgreSQL.
      ['select $é$ a;b $é$;\nselect 2;', ['select $é$ a;b $é$', 'select 2']],
      // '#' is an operator to PostgreSQL (our lexer reads '#$$' as a word).
      ['select 1#$$;$$;\nselect 2;', ['select 1#$$;$$', 'select 2']],
      // A `--` comment ends at a lone carriage return.
      ['select 1 -- x\rfrom t;\nselect 2;', ['select 1 -- x\rfrom t', 'select 2']],
      // B'…' ends at the first quote; a standard string takes backslashes as they are.
      ["select B'1''0', 'a\\';\nselect 2;", ["select B'1''0', 'a\\'", 'select 2']],
      // E'' escapes, U&'' and N'' strings, a two-letter word before a string.
      ["select E'it\\'s;', U&'d\\0061t', N'n;', be'x;';\nselect 2;", ["select E'it\\'s;', U&'d\\0061t', N'n;', be'x;'", 'select 2']],
      // Exponents, parameters, typecasts.
      ['select 1e-5, $1::int, .5e+3;\nselect 2;', ['select 1e-5, $1::int, .5e+3', 'select 2']],
    ];
    for (const [sql, expected] of cases) {
      const r = bothWays(sql);
      expect(r.mixed, sql).toEqual(r.scanner);
      expect(r.statements, sql).toEqual(expected);
    }
  });

  it('where the scanner rejects a stretch (a number followed by letters, a control character, an operator too long), the warning and the fallback split are the same', () => {
    for (const sql of [
      'select 1;\nselect 1e-5e3;\nselect 2;',
      "select 1;\nselect 'a\u0001';\nselect 2;",
      'select 1;\nselect 1é;\nselect 2;',
      'select 1;\nselect "";\nselect 2;',
      // An operator of 64 characters or more; a parameter number past 2^31 - 1.
      `select 1;\nselect 1 ${'<'.repeat(64)} 2;\nselect 2;`,
      'select 1;\nselect $2147483648;\nselect 2;',
    ]) {
      const r = bothWays(sql);
      expect(r.mixed, JSON.stringify(sql)).toEqual(r.scanner);
      expect((r.mixed as [unknown, string[]])[1].length, JSON.stringify(sql)).toBe(1);
    }
  });

  it('3,000 scripts drawn from those constructs split alike', () => {
    // A fixed-seed generator: mostly ordinary tokens, some of the troublesome ones.
    let seed = 27;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    const ordinary = [
      ';',
      ' ',
      '\n',
      '(',
      ')',
      ',',
      'select',
      'insert',
      'into',
      't',
      'values',
      "'x'",
      "'a;b'",
      '1',
      '2.5',
      'NULL',
      'begin',
      'end',
      'create',
      'function',
      'case',
      "E'e'",
      "B'01'",
      '1e-05',
      '"q"',
      '$$x;y$$',
      '-- c\n',
      '/* c; */',
    ];
    const troublesome = [
      ...[';', '\r', '\r\n', '\t', '\f', '\v', '\u00a0', '\u3000', '[', ']', '.', '::', '@', '#', '@>', '#>>', '$', '$1', '$12a', '&', '\\', '`', '{', '}'],
      ...['procedure', 'or', 'replace', 'atomic', 'copy', 'from stdin', 'u', 'U', 'e', 'N', 'b', 'X', 'be', 'a#b', 'a$b$', 'élan', 'x\u00a0y'],
      ...["'", '"', '""', '"a""b"', "'back\\'", "E'a\\'b'", "E'\\u12'", "X'1F'", "B'1''0'", "N'nat'", "U&'d\\0061t'", 'U&"x"', "be'x'", "r'x'"],
      ...['$$', '$x$ a; b $x$', '$é$ a;b $é$', '$a$', '--', '-- c\r', '/*', '*/', '/* a; /* b; */ c */', '/*/', '/**/'],
      ...['12.5', '1e5', '1e-5', '.5', '1.', '1..2', '1abc', '0x1F', '1_000', '1e', '1e-5e3', '1é', '\u0001', '\u001f', '\x7f', '😀'],
      ...['<'.repeat(63), '=<'.repeat(32), '+'.repeat(70), '$2147483647', '$2147483648', '$99999999999'],
    ];
    let withWarnings = 0;
    for (let k = 0; k < 3000; k++) {
      const odd = rnd() < 0.3 ? 0.05 : 0.4;
      let sql = '';
      for (let i = 5 + Math.floor(rnd() * 60); i > 0; i--) sql += (rnd() < odd ? pick(troublesome) : pick(ordinary)) + pick([' ', '\n', '']);
      const r = bothWays(sql);
      expect(r.mixed, JSON.stringify(sql)).toEqual(r.scanner);
      if ((r.mixed as [unknown, string[]])[1].length) withWarnings++;
    }
    // Both kinds were drawn: scripts the scanner rejects somewhere, and scripts it reads whole.
    expect(withWarnings).toBeGreaterThan(300);
    expect(withWarnings).toBeLessThan(2700);
  });

  it('a pg_dump INSERT of 2 MiB (pieces cut inside it) and a dump of such INSERTs split alike', () => {
    const one = largeInsertDump({ dialect: 'PostgreSql', mb: 2, around: true });
    const r = bothWays(one.text);
    expect(r.mixed).toEqual(r.scanner);
    expect(r.statements.map((s) => s.length)).toEqual(one.statements.map((s) => s.text.length));
  });
});
