// The streamed split (pieces cut at line breaks, resumed where the splitter says) gives exactly
// the statements, positions, batches and directives of splitting the whole text at once, for
// every dialect; and units are reserved as statements stream, so a quota stops a script early.
import { beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadPostgres, parseSql, splitGeneric, splitPostgres } from '../../../src/formats/sql/index.js';
import { detectEncoding, streamStatements, type Directive } from '../../../src/formats/sql/stream.js';
import type { Dialect } from '../../../src/formats/sql/statements.js';
import { ExtractionError } from '../../../src/formats/kit/types.js';
import { JsonWriter } from '../../../src/formats/kit/json-writer.js';
import { hasSqlCorpus, sqlCorpusFile, sqlManifest } from './corpus-dir.js';

beforeAll(async () => {
  await loadPostgres();
});

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-sql-stream-'));

async function streamed(
  text: string,
  dialect: Dialect,
  pieceChars: number,
): Promise<{ statements: [number, number, number, number, number | undefined, number | undefined, number][]; directives: Directive[]; warnings: string[] }> {
  const file = path.join(tmp, `${dialect}-${pieceChars}.sql`);
  fs.writeFileSync(file, text);
  const directives: Directive[] = [];
  const warnings: string[] = [];
  const statements: [number, number, number, number, number | undefined, number | undefined, number][] = [];
  const enc = await detectEncoding(file, fs.statSync(file).size);
  for await (const s of streamStatements(file, enc, dialect, {
    pieceChars,
    readBytes: 4096,
    onDirective: (d) => directives.push(d),
    onWarning: (w) => warnings.push(w),
    onProgress: () => {},
  })) {
    expect(text.slice(s.start.offset, s.end.offset)).toBe(s.text);
    statements.push([s.start.offset, s.end.offset, s.start.line, s.start.column, s.raw.batch, s.raw.repeat, s.inner.length]);
  }
  return { statements, directives, warnings };
}

function whole(text: string, dialect: Dialect): [number, number, number, number, number | undefined, number | undefined, number][] {
  const r = dialect === 'PostgreSql' ? splitPostgres(text) : splitGeneric(text, dialect);
  return r.statements.map((s) => {
    const before = text.slice(0, s.start).split(/\r\n|\r|\n/);
    return [s.start, s.end, before.length, before[before.length - 1].length + 1, s.batch, s.repeat, -1];
  });
}

const SCRIPTS: [Dialect, string][] = [
  [
    'MsSql',
    `CREATE TABLE t (a int)\nINSERT t VALUES (1)\nGO\n${'IF 1 = 1 BEGIN PRINT 1 PRINT 2 END ELSE PRINT 3\nGO 3\n'.repeat(40)}:setvar x 1\nSELECT 'GO\nGO'\n`,
  ],
  [
    'MySql',
    `${'SELECT 1;\n'.repeat(30)}DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END//\nDELIMITER ;\n${"SELECT 'a;b' # c;\n;\n".repeat(30)}`,
  ],
  [
    'PostgreSql',
    `${'SELECT 1;\n'.repeat(20)}COPY t (a, b) FROM stdin;\n${'1\tx; y\n'.repeat(200)}\\.\n\\set x 1\nDO $$ BEGIN PERFORM 1; END $$;\n${'INSERT INTO t VALUES (1);\n'.repeat(30)}`,
  ],
  ['Oracle', `${'SELECT 1 FROM dual;\n'.repeat(20)}SET SERVEROUTPUT ON\nBEGIN\n  NULL;\n  NULL;\nEND;\n/\n${'UPDATE t SET a = 1;\n'.repeat(20)}`],
  ['BigQuery', `${'SELECT 1;\n'.repeat(20)}IF x > 0 THEN\n  SELECT 1;\nEND IF;\nBEGIN\n  SELECT 2;\nEND;\n${'SELECT 3;\n'.repeat(20)}`],
  ['Snowflake', `${'SELECT 1;\n'.repeat(20)}EXECUTE IMMEDIATE $$\nBEGIN\n  SELECT 1;\nEND;\n$$;\n${'SELECT 2;\n'.repeat(20)}`],
];

describe('streamed split = whole split', () => {
  for (const [dialect, text] of SCRIPTS) {
    it(`${dialect}: same statements, positions, batches and directives in pieces of 64 chars and of 4 MiB`, async () => {
      const small = await streamed(text, dialect, 64);
      const large = await streamed(text, dialect, 4 * 1024 * 1024);
      const strip = (xs: typeof small.statements): unknown[] => xs.map((x) => x.slice(0, 6));
      expect(strip(small.statements)).toEqual(whole(text, dialect).map((x) => x.slice(0, 6)));
      expect(small.statements).toEqual(large.statements);
      expect(small.directives).toEqual(large.directives);
      expect(small.statements.length).toBeGreaterThan(20);
    });
  }

  it.skipIf(!hasSqlCorpus)('every corpus dialect, all files concatenated, in pieces of 4,000 chars', async () => {
    const DIALECT: Record<string, Dialect> = { postgresql: 'PostgreSql', transactsql: 'MsSql', snowflake: 'Snowflake', mysql: 'MySql' };
    for (const [key, dialect] of Object.entries(DIALECT)) {
      const sep = dialect === 'MsSql' ? '\nGO\n' : '\n;\n';
      const text = sqlManifest()
        .filter((m) => m.dialect === key)
        .map((m) => fs.readFileSync(sqlCorpusFile(m.file), 'utf8'))
        .join(sep);
      const r = await streamed(text, dialect, 4000);
      expect(
        r.statements.map((x) => x.slice(0, 6)),
        dialect,
      ).toEqual(whole(text, dialect).map((x) => x.slice(0, 6)));
    }
  });
});

describe('warnings say where in the file', () => {
  for (const dialect of ['PostgreSql', 'MySql', 'MsSql'] as Dialect[]) {
    it(`${dialect}: an unterminated string after 50 lines is reported at line 51, not at an offset in the piece being split`, async () => {
      const file = path.join(tmp, `unterminated-${dialect}.sql`);
      fs.writeFileSync(file, `${'SELECT 1;\n'.repeat(50)}SELECT 'abc;\nSELECT 2;\n`);
      const warnings: string[] = [];
      let count = 0;
      const enc = await detectEncoding(file, fs.statSync(file).size);
      const opts = { pieceChars: 64, readBytes: 4096, onDirective: () => {}, onWarning: (w: string) => warnings.push(w), onProgress: () => {} };
      for await (const s of streamStatements(file, enc, dialect, opts)) if (s.text.startsWith("SELECT 'abc")) count++;
      expect(count).toBe(1);
      expect(warnings).toContain("unterminated '-quoted text starting at line 51, column 8: the statement runs to the end of the file");
      expect(warnings.filter((w) => /offset/.test(w))).toEqual([]);
    });
  }
});

describe('PostgreSQL COPY … FROM STDIN data is counted once per file', () => {
  it('one warning with the number of data blocks in the file, however many passes it is split in', async () => {
    const block = (n: number): string => `COPY t (a, b) FROM stdin;\n${'1\tx; y\n'.repeat(n)}\\.\n`;
    const text = `${block(3)}SELECT 1;\n${block(40)}SELECT 2;\n${block(2000)}${block(1)}SELECT 3;\n`;
    const file = path.join(tmp, 'copies.sql');
    fs.writeFileSync(file, text);
    for (const pieceChars of [64, 4096, 4 * 1024 * 1024]) {
      const warnings: string[] = [];
      const enc = await detectEncoding(file, fs.statSync(file).size);
      let count = 0;
      const opts = { pieceChars, readBytes: 1024, onDirective: () => {}, onWarning: (w: string) => warnings.push(w), onProgress: () => {} };
      for await (const s of streamStatements(file, enc, 'PostgreSql', opts)) if (s.text) count++;
      expect([count, warnings], `pieces of ${pieceChars}`).toEqual([7, ['4 COPY … FROM STDIN data blocks are data, not statements']]);
    }
    expect(splitPostgres(text).warnings).toEqual(['4 COPY … FROM STDIN data blocks are data, not statements']);
  });
});

describe('PostgreSQL COPY … FROM STDIN data larger than what is held', () => {
  it('a 20 MB data block is skipped as it streams: the same statements as the whole split', async () => {
    const row = '1\tsome text; with a semicolon\t2024-01-01\n';
    const data = row.repeat(Math.ceil((20 * 1024 * 1024) / row.length));
    const text = `SELECT 1;\nCOPY t (a, b, c) FROM stdin;\n${data}\\.\nSELECT 2;\nCOPY u FROM stdin;\n${row}\\.\nSELECT 3;\n`;
    const r = await streamed(text, 'PostgreSql', 1024 * 1024);
    expect(r.statements.map((x) => x.slice(0, 4))).toEqual(whole(text, 'PostgreSql').map((x) => x.slice(0, 4)));
    expect(r.statements).toHaveLength(5);
    expect(r.warnings).toEqual(['2 COPY … FROM STDIN data blocks are data, not statements']);
  });
});

describe('units are reserved as statements stream', () => {
  it('a script past the quota stops with quota_exceeded after reserving no more than fits', async () => {
    const file = path.join(tmp, 'quota.sql');
    fs.writeFileSync(file, 'SELECT 1;\n'.repeat(500));
    const reserved: number[] = [];
    const quota = 100;
    const units = {
      async reserve(total: number): Promise<void> {
        if (total > quota) throw new ExtractionError('quota exceeded', 'quota_exceeded');
        reserved.push(total);
      },
    };
    const out = path.join(tmp, 'quota.json');
    const writer = new JsonWriter(fs.createWriteStream(out));
    const run = parseSql(
      { filePath: file, fileName: 'q.sql', format: 'sql', options: { sqlDialect: 'MySql' }, tempDir: tmp, progress: () => {}, units },
      writer,
    );
    await expect(run).rejects.toMatchObject({ code: 'quota_exceeded' });
    expect(Math.max(...reserved)).toBe(quota);
  });
});
