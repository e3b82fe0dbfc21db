// SQL provenance and completeness (issue 32, items 3–4): each statement's lines and byte
// offsets in the upload, checked by reading the file's bytes back (every corpus file, and one
// against python3's own reading of the file), through BOMs, UTF-16, a legacy code page, CRLF
// and the streamed pieces; and the completeness block's statements against the content.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { detectEncoding, streamStatements } from '../../../src/formats/sql/stream.js';
import { parseSql } from '../../../src/formats/sql/index.js';
import { JsonWriter } from '../../../src/formats/kit/json-writer.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { parseScript } from './script.js';
import { hasSqlCorpus, sqlCorpusFile, sqlManifest } from './corpus-dir.js';

const DIALECT: Record<string, string> = { postgresql: 'PostgreSql', transactsql: 'MsSql', snowflake: 'Snowflake', mysql: 'MySql' };
const hasPython = spawnSync('python3', ['--version']).status === 0;

async function artifactOf(sql: string | Buffer, dialect: string): Promise<Record<string, any>> {
  const r = await parseScript(sql, dialect);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.artifact;
}

/** The statements' text read back from the upload's bytes at their offsets, and their lines counted there. */
function expectProvenanceMatches(bytes: Buffer, encoding: string, statements: any[]): void {
  for (const s of statements) {
    const [first, last] = s.provenance.offsets;
    expect(iconv.decode(bytes.subarray(first, last + 1), encoding), `statement ${s.index}`).toBe(s.text);
    const before = iconv.decode(bytes.subarray(0, first), encoding);
    const line = before.split(/\r\n|\r|\n/).length;
    expect(s.provenance.lines, `statement ${s.index}`).toEqual([line, line + s.text.split(/\r\n|\r|\n/).length - 1]);
  }
}

/** found = emitted + failed + skipped, and each count is what the content holds. */
function expectStatementTotals(a: Record<string, any>): void {
  const t = a.completeness.statements;
  const c = a.content;
  const by = (status: string) => c.statements.filter((s: any) => s.parseStatus === status).length;
  expect(t.found).toBe(t.emitted + t.failed + t.skipped);
  expect([t.found, t.emitted, t.failed, t.skipped]).toEqual([c.statements.length, by('parsed'), by('error'), by('skipped')]);
  expect([c.statementCount, c.parsedCount, a.documentUnits]).toEqual([t.found, t.emitted, t.found]);
  expect(t.gaps.length).toBe(Math.min(100, t.failed + t.skipped));
  expect(a.completeness.complete).toBe(t.failed + t.skipped === 0);
  const missed = c.statements.filter((s: any) => s.parseStatus !== 'parsed').slice(0, 100);
  expect(t.gaps.map((g: any) => g.provenance)).toEqual(missed.map((s: any) => s.provenance));
}

describe.skipIf(!hasSqlCorpus)('sql corpus: completeness and provenance of every file', () => {
  for (const m of sqlManifest()) {
    it(`${m.file}`, async () => {
      const file = sqlCorpusFile(m.file);
      const a = await artifactOf(fs.readFileSync(file), DIALECT[m.dialect]);
      expectStatementTotals(a);
      expectProvenanceMatches(fs.readFileSync(file), a.content.encoding, a.content.statements);
    });
  }
});

// python3 finds each statement's text in the file's bytes, in order, and counts the line breaks
// before it: a reading of the file that shares nothing with ours.
const PY_FIND = `
import json, sys
data = open(sys.argv[1], 'rb').read()
at = 0
out = []
for text in json.load(sys.stdin):
    b = text.encode('utf-8')
    i = data.index(b, at)
    at = i + len(b)
    first = data.count(b'\\n', 0, i) + 1
    out.append([first, first + b.count(b'\\n'), i, at - 1])
print(json.dumps(out))
`;

describe.skipIf(!hasSqlCorpus || !hasPython)('sql provenance against python3', () => {
  it('mysql__ddl_create.sql (UTF-8 with 133 non-ASCII bytes): lines and byte offsets of every statement', async () => {
    const file = sqlCorpusFile('mysql__ddl_create.sql');
    const a = await artifactOf(fs.readFileSync(file), 'MySql');
    const statements = a.content.statements;
    expect(statements.length).toBeGreaterThan(50);
    const py = JSON.parse(execFileSync('python3', ['-c', PY_FIND, file], { input: JSON.stringify(statements.map((s: any) => s.text)) }).toString());
    expect(statements.map((s: any) => [...s.provenance.lines, ...s.provenance.offsets])).toEqual(py);
    // Statements after the first non-ASCII character: byte and character offsets differ there.
    expect(statements.some((s: any) => s.provenance.offsets[0] !== s.span.start.offset)).toBe(true);
  });
});

describe('sql provenance on generated scripts', () => {
  const script = "SELECT 'café' AS a;\r\n-- naïve comment\r\nUPDATE t SET b = 'ü'\r\n  WHERE id = 1;\r\nDELETE FROM t;\r\n";

  it.each([
    ['UTF-8', 'utf-8', Buffer.from(script, 'utf8')],
    ['UTF-8 with a BOM', 'utf-8', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(script, 'utf8')])],
    ['UTF-16LE with a BOM', 'utf-16le', Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(script, 'utf-16le')])],
    ['Windows-1252', 'windows-1252', iconv.encode(script.replace(/'ü'/, "'ü déjà vu'"), 'windows-1252')],
  ])('%s: offsets are bytes of the upload (the BOM counted), lines from 1 across CRLF', async (_name, encoding, bytes) => {
    const a = await artifactOf(bytes, 'PostgreSql');
    const s = a.content.statements;
    expect(s.map((x: any) => x.provenance.lines)).toEqual([
      [1, 1],
      [3, 4],
      [5, 5],
    ]);
    // chardet may name another single-byte code page for so short a text: the bytes are read back in the one detected.
    expectProvenanceMatches(bytes, a.content.encoding, s);
    const bom = encoding === 'windows-1252' ? 0 : bytes.length - iconv.encode(script, encoding).length;
    expect(s[0].provenance.offsets[0]).toBe(bom);
  });

  it('offsets stay exact when the file is split in small pieces, through a COPY data block passed over', async () => {
    const copy = 'COPY t (a) FROM stdin;\n' + Array.from({ length: 200 }, (_, i) => `é${i}\tü€\n`).join('') + '\\.\n';
    const sql = `SELECT 'ä';\n${copy}${Array.from({ length: 50 }, (_, i) => `INSERT INTO t VALUES ('ñ${i}');`).join('\n')}\n`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-sql-prov-'));
    const file = path.join(dir, 'x.sql');
    fs.writeFileSync(file, sql);
    try {
      const enc = await detectEncoding(file, fs.statSync(file).size);
      const opts = { pieceChars: 256, readBytes: 97, onDirective: () => {}, onWarning: () => {}, onProgress: () => {} };
      const bytes = fs.readFileSync(file);
      let n = 0;
      for await (const s of streamStatements(file, enc, 'PostgreSql', opts)) {
        expect(bytes.subarray(s.bytes.start, s.bytes.end).toString('utf8')).toBe(s.text);
        n++;
      }
      expect(n).toBe(52);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the upload’s place inside a container comes first in each provenance and gap', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-sql-within-'));
    const file = path.join(dir, 'x.sql');
    const out = path.join(dir, 'content.json');
    fs.writeFileSync(file, 'SELECT 1;\nSELEC 2;\n');
    try {
      const stream = fs.createWriteStream(out);
      const writer = new JsonWriter(stream);
      const within = { message: 3, attachment: [2], file: 'x.sql' };
      const outcome = await parseSql(
        {
          filePath: file,
          fileName: 'x.sql',
          format: 'sql',
          options: { sqlDialect: 'MySql' },
          settings: parserSettings(),
          tempDir: dir,
          progress: () => {},
          within,
        },
        writer,
      );
      await writer.finish();
      stream.end();
      await once(stream, 'finish');
      const content = JSON.parse(fs.readFileSync(out, 'utf8'));
      expect(content.statements.map((s: any) => s.provenance)).toEqual([
        { ...within, lines: [1, 1], offsets: [0, 7] },
        { ...within, lines: [2, 2], offsets: [10, 16] },
      ]);
      expect(outcome.completeness!.statements!.gaps.map((g) => g.provenance)).toEqual([content.statements[1].provenance]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sql completeness on generated scripts', () => {
  it('a statement no parser accepts is failed, with the parser’s reason and its lines and bytes; its text stays in the content', async () => {
    const sql = 'SELECT 1;\nSELEC oops FROM;\nSELECT 2;\n';
    const a = await artifactOf(sql, 'PostgreSql');
    expectStatementTotals(a);
    const t = a.completeness.statements;
    expect([t.found, t.emitted, t.failed, t.skipped, a.completeness.complete]).toEqual([3, 2, 1, 0, false]);
    expect(t.gaps[0]).toEqual({
      outcome: 'failed',
      reason: 'Not parsed: no parser of the dialect accepts the statement (syntax error at or near "SELEC"); its text is kept, without an AST.',
      provenance: { lines: [2, 2], offsets: [10, 24] },
    });
    expect(a.content.statements[1].text).toBe('SELEC oops FROM');
  });

  it('a statement too large to parse is skipped, with why', async () => {
    const sql = `SELECT 1;\nSELECT ${Array(300_000).fill('1').join(', ')};\n`;
    const a = await artifactOf(sql, 'PostgreSql');
    expectStatementTotals(a);
    const t = a.completeness.statements;
    expect([t.found, t.emitted, t.failed, t.skipped]).toEqual([2, 1, 0, 1]);
    expect(t.gaps[0].outcome).toBe('skipped');
    expect(t.gaps[0].reason).toMatch(/^Not parsed: the statement has more than 250,000 tokens .*\.$/);
    expect(t.gaps[0].provenance).toEqual({ lines: [2, 2], offsets: [10, sql.length - 3] });
  });

  it('a script of comments only holds no statements, and is complete', async () => {
    const a = await artifactOf('-- nothing here\n', 'MySql');
    expect(a.completeness).toEqual({ complete: true, statements: { found: 0, emitted: 0, empty: 0, failed: 0, skipped: 0, gaps: [] } });
  });
});
