// Tabular route against the real corpus (its csv folder), checked against the
// MANIFEST's ground truth (native GDAL 3.6.2 row/field counts, `file` encodings).
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { corpusFile, readManifest, removeTempFiles, runCsv, tempFile } from './helpers.js';
import { ExtractionError } from '../../../src/formats/kit/types.js';

afterAll(removeTempFiles);

const manifest = readManifest();

/**
 * Where GDAL's reading is not the right one, with the reason. Everything else must match
 * the MANIFEST exactly.
 */
const DEVIATIONS: Record<string, { rows: number; fields: number; why: string }> = {
  'csvkit_null_byte.csv': {
    rows: 1,
    fields: 3,
    why: 'GDAL stops at the NUL (C string) and sees 0 rows; we drop the NUL and keep the row, with a warning',
  },
  'csvkit_test_header_newline.csv': {
    rows: 1,
    fields: 3,
    why: 'the quoted header cell holds \\r and \\n; RFC 4180 reads 3 header fields (GDAL 1)',
  },
  'gdal_header_with_line_break.csv': {
    rows: 3,
    fields: 7,
    why: 'two quoted header cells hold line breaks; header and every data row have 7 fields (GDAL reports 3)',
  },
};

describe('csv corpus: row and column counts equal the MANIFEST', () => {
  const withCounts = manifest.filter((m) => m.rows !== null && m.fields !== null);
  it('the MANIFEST gives counts for most files', () => {
    expect(withCounts.length).toBeGreaterThanOrEqual(25);
  });
  for (const m of withCounts) {
    const dev = DEVIATIONS[m.file];
    const want = dev ?? { rows: m.rows!, fields: m.fields! };
    it(`${m.file}: ${want.rows} rows × ${want.fields} columns${dev ? ` (deviation: ${dev.why})` : ''}`, async () => {
      const { content, outcome } = await runCsv(corpusFile(m.file));
      expect(outcome.documentFormat).toBe('csv');
      expect(outcome.documentUnits).toBe(1);
      expect(outcome.metadata.rowCount).toBe(want.rows);
      expect(outcome.metadata.columnCount).toBe(want.fields);
      expect(content.rowCount).toBe(want.rows);
      expect(content.rows).toHaveLength(want.rows);
      expect(content.columns).toHaveLength(want.fields);
      expect(outcome.metadata.bytes).toBe(fs.statSync(corpusFile(m.file)).size);
    });
  }
});

describe('csv corpus: encodings', () => {
  const expected = (enc: string): string[] => (enc === 'us-ascii' ? ['utf-8'] : enc === 'iso-8859-1' ? ['iso-8859-1', 'windows-1252'] : [enc]);
  for (const m of manifest.filter((x) => x.encoding && x.encoding !== 'binary')) {
    it(`${m.file}: ${m.encoding}`, async () => {
      const { outcome } = await runCsv(corpusFile(m.file));
      expect(expected(m.encoding!)).toContain(outcome.metadata.encoding);
    });
  }

  it('ISO-8859-1 bytes are decoded (© = 0xA9)', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_test_latin1.csv'));
    expect(outcome.metadata.bom).toBe(false);
    expect(content.rows).toEqual([
      [1, 2, '3'],
      [4, 5, '©'],
    ]);
  });

  for (const [file, enc] of [
    ['csvkit_test_utf16_little.csv', 'utf-16le'],
    ['csvkit_test_utf16_big.csv', 'utf-16be'],
  ] as const) {
    it(`${file}: ${enc} with BOM (GDAL cannot open it)`, async () => {
      const { content, outcome } = await runCsv(corpusFile(file));
      expect(outcome.metadata).toMatchObject({ encoding: enc, bom: true, encodingSource: 'bom' });
      expect(content.columns.map((c: any) => c.name)).toEqual(['a', 'b', 'c']);
      expect(content.rows).toEqual([
        [1, 2, '3'],
        [4, 5, 'ʤ'],
      ]);
    });
  }

  it('UTF-8 with BOM: the BOM is not part of the first header', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_test_utf8_bom.csv'));
    expect(outcome.metadata).toMatchObject({ encoding: 'utf-8', bom: true });
    expect(content.columns.map((c: any) => c.name)).toEqual(['foo', 'bar', 'baz']);
    expect(content.rows[1]).toEqual([4, 5, 'ʤ']);
  });

  it('UTF-8 BOM with a quoted header and non-ASCII text (gdal)', async () => {
    const { content } = await runCsv(corpusFile('gdal_csv_with_utf8_bom.csv'));
    expect(content.columns.map((c: any) => c.name)).toEqual(['id', 'name', 'WKT']);
    expect(content.rows[0][1]).toBe('Colac Bay/Ōraka');
  });

  it('a file that is UTF-8 in its first 256 KB but Latin-1 later is re-read as Latin-1', async () => {
    const head = 'id,text\n' + Array.from({ length: 20000 }, (_, i) => `${i},plain ascii line`).join('\n') + '\n';
    const tail = Buffer.from('20000,caf\xe9 cr\xe8me\n', 'latin1');
    const file = await tempFile('late-latin1.csv', Buffer.concat([Buffer.from(head), tail]));
    const { content, outcome } = await runCsv(file);
    expect(['iso-8859-1', 'windows-1252']).toContain(outcome.metadata.encoding);
    expect(outcome.warnings.join(' ')).toMatch(/not valid UTF-8/);
    expect(content.rows[20000]).toEqual([20000, 'café crème']);
    expect(content.rowCount).toBe(20001);
  });

  it('UTF-16LE without a BOM is recognised by its NUL pattern', async () => {
    const file = await tempFile('nobom16.csv', Buffer.from('name,n\nÅsa,1\nBo,2\n', 'utf16le'));
    const { content, outcome } = await runCsv(file);
    expect(outcome.metadata).toMatchObject({ encoding: 'utf-16le', bom: false });
    expect(content.rows).toEqual([
      ['Åsa', 1],
      ['Bo', 2],
    ]);
  });
});

describe('csv corpus: dialects and damaged files', () => {
  it('old-Mac CR line endings, with a CR inside a quoted field', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_mac_newlines.csv'));
    expect(outcome.metadata.lineEnding).toBe('CR');
    // Column a holds text in row 2, so it is a string column.
    expect(content.rows).toEqual([
      ['1', 2, 3],
      ['Once upon\ra time', 5, 6],
    ]);
    expect(content.columns.map((c: any) => c.type)).toEqual(['string', 'integer', 'integer']);
  });

  it('CRLF line endings are reported', async () => {
    const { outcome } = await runCsv(corpusFile('vega_birdstrikes.csv'));
    expect(outcome.metadata.lineEnding).toBe('CRLF');
  });

  it('no header row: numeric first row is data, columns are named column_N', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_no_header_row.csv'));
    expect(outcome.metadata.hasHeader).toBe(false);
    expect(content.columns.map((c: any) => c.name)).toEqual(['column_1', 'column_2', 'column_3']);
    expect(content.rows).toEqual([[1, 2, 3]]);
  });

  it('GeoNames TSV without header: tab delimiter, 19 columns', async () => {
    const { content, outcome } = await runCsv(corpusFile('gdal_allCountries.txt'));
    expect(outcome.metadata).toMatchObject({ delimiter: '\t', hasHeader: false, columnCount: 19 });
    expect(content.rows[0][2]).toBe('Costa de Xurius,added comma');
    expect(content.rows[1][2]).toBe(`'initial single quote and " double quote Font de la Xona`);
    expect(content.columns[18].type).toBe('date');
  });

  it('NUL byte: removed with a warning, the row is kept', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_null_byte.csv'));
    expect(outcome.warnings.join(' ')).toMatch(/NUL/);
    expect(content.rows).toEqual([[null, 2, 3]]);
  });

  it('bad file: ragged rows are kept and counted in a warning', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_bad.csv'));
    expect(content.rows).toEqual([
      [1, '27', null, "I'm too long!"],
      [null, "I'm too short!", null],
      [0, 'mixed types.... uh oh', 17],
    ]);
    const w = outcome.warnings.find((x) => x.includes('different number of fields'));
    expect(w).toMatch(/^2 rows of 3/);
    expect(w).toMatch(/1 longer.*1 shorter/);
  });

  it('empty file: a valid artifact with 0 rows and a warning', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_empty.csv'));
    expect(content).toEqual({ provenance: {}, columns: [], rowCount: 0, rows: [] });
    expect(outcome.metadata.rowCount).toBe(0);
    expect(outcome.warnings.join(' ')).toMatch(/empty/);
  });

  it('a zero-byte file is empty too; a header-only file has columns and no rows', async () => {
    const zero = await runCsv(await tempFile('zero.csv', ''));
    expect(zero.content.rowCount).toBe(0);
    const headerOnly = await runCsv(await tempFile('h.csv', 'a,b\n'));
    expect(headerOnly.content.columns.map((c: any) => c.name)).toEqual(['a', 'b']);
    expect(headerOnly.content.rows).toEqual([]);
    expect(headerOnly.outcome.warnings.join(' ')).toMatch(/no data rows/);
  });

  it('optional quote characters: quoted numbers are still typed', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_optional_quote_characters.csv'));
    expect(outcome.metadata.quoteChar).toBe('"');
    expect(content.rows).toEqual([[1, 2, 3]]);
    expect(content.columns.map((c: any) => c.type)).toEqual(['integer', 'integer', 'integer']);
  });

  it('header with whitespace and newlines inside a quoted cell', async () => {
    const { content, outcome } = await runCsv(corpusFile('csvkit_test_header_newline.csv'));
    expect(outcome.metadata.hasHeader).toBe(true);
    expect(content.columns.map((c: any) => c.name)).toEqual(['\t\n\v\f\r start \t\n\v\f\r end \t\n\v\f\r', 'b', 'c']);
    expect(content.rows).toEqual([['d', 'e', 'f']]);
  });

  it('header with line breaks inside quotes (gdal)', async () => {
    const { content } = await runCsv(corpusFile('gdal_header_with_line_break.csv'));
    expect(content.columns.map((c: any) => c.name)).toEqual([
      'Column one',
      'Column two',
      'Column with a\nline break',
      'Column three',
      'Another\nline break',
      'Column four',
      'Column five',
    ]);
    expect(content.rows[2]).toEqual([7, 8, 9, 10, 11, 12, 13]);
  });

  it('stray quotes in the middle of an unquoted field are literal', async () => {
    const { content } = await runCsv(corpusFile('gdal_double_quotes_in_middle_of_field.csv'));
    expect(content.rows).toEqual([[1, `50°46'06.6"N 116°42'04.4`, 'foo']]);
  });

  it('unbalanced quotes: the open field runs to the end of the file, with a warning', async () => {
    const { content, outcome } = await runCsv(corpusFile('gdal_unbalanced_double_quotes.csv'));
    expect(content.rows).toEqual([[1, 'foo"\n2,bar\n']]);
    expect(outcome.warnings.join(' ')).toMatch(/unbalanced quotes/);
  });

  it('quoted EPSG table with a semicolon inside quotes keeps the comma delimiter', async () => {
    const { content, outcome } = await runCsv(corpusFile('gdal_prime_meridian.csv'));
    expect(outcome.metadata.delimiter).toBe(',');
    const byName = Object.fromEntries(content.columns.map((c: any) => [c.name, c]));
    expect(byName.PRIME_MERIDIAN_CODE.type).toBe('integer');
    expect(byName.GREENWICH_LONGITUDE.type).toBe('number');
    expect(byName.REVISION_DATE.type).toBe('datetime');
    expect(content.rows[0][7]).toBe('1995-06-02T00:00:00');
  });

  it('Eurostat TSV: composite first column and value/flag cells are expanded', async () => {
    const { content, outcome } = await runCsv(corpusFile('gdal_test_eurostat.tsv'));
    expect(outcome.metadata).toMatchObject({ delimiter: '\t', dialect: 'eurostat' });
    expect(content.columns.map((c: any) => c.name)).toEqual(['unit', 'geo', '2010', '2010_flag', '2011', '2011_flag', '2012', '2012_flag']);
    expect(content.rows).toEqual([['NBR', 'FOO', null, null, 1, 'u', 2.34, null]]);
  });

  it('tab-delimited .tsv', async () => {
    const { content, outcome } = await runCsv(corpusFile('vega_unemployment.tsv'));
    expect(outcome.metadata.delimiter).toBe('\t');
    expect(content.columns).toMatchObject([
      { name: 'id', type: 'integer' },
      { name: 'rate', type: 'number' },
    ]);
    expect(content.rows[0]).toEqual([1001, 0.097]);
  });

  it('semicolon and pipe delimiters are sniffed', async () => {
    const semi = await runCsv(await tempFile('semi.csv', 'a;b;c\n1,5;x;2020-01-02\n2,5;y;2020-01-03\n'));
    expect(semi.outcome.metadata.delimiter).toBe(';');
    expect(semi.content.rows[0]).toEqual(['1,5', 'x', '2020-01-02']);
    const pipe = await runCsv(await tempFile('pipe.txt', 'a|b\n1|x\n2|y\n'));
    expect(pipe.outcome.metadata.delimiter).toBe('|');
    expect(pipe.content.rows).toEqual([
      [1, 'x'],
      [2, 'y'],
    ]);
  });

  it('single-quote quoting is sniffed', async () => {
    const { content, outcome } = await runCsv(await tempFile('sq.csv', "name,n\n'a, b',1\n'c, d',2\n"));
    expect(outcome.metadata.quoteChar).toBe("'");
    expect(content.rows).toEqual([
      ['a, b', 1],
      ['c, d', 2],
    ]);
  });

  it('duplicate and empty header names are disambiguated', async () => {
    const { content } = await runCsv(await tempFile('dup.csv', 'x,x,,x\n1,2,3,4\n'));
    expect(content.columns.map((c: any) => c.name)).toEqual(['x', 'x_2', 'column_3', 'x_3']);
  });

  it('a binary file is rejected with ExtractionError', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);
    await expect(runCsv(await tempFile('img.csv', png))).rejects.toThrow(ExtractionError);
    const noise = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    await expect(runCsv(await tempFile('noise.csv', noise))).rejects.toThrow(/not a text CSV/);
  });
});

describe('csv corpus: type inference over all rows', () => {
  it('GDAL type auto-detection file: a late text value makes a column string', async () => {
    const { content } = await runCsv(corpusFile('gdal_testtypeautodetect.csv'));
    const t = Object.fromEntries(content.columns.map((c: any) => [c.name, c]));
    expect(t.real1).toMatchObject({ type: 'number', nullCount: 6, min: 0.52, max: 1.5 });
    expect(t.empty).toMatchObject({ type: 'string', nullCount: 9 });
    // Row 3 has 'a' in nearly every column, so types the first rows suggest do not hold.
    for (const name of ['real2', 'int1', 'dt1', 'date', 'str3']) expect(t[name].type).toBe('string');
  });

  it('dates, numbers and text (seattle-weather)', async () => {
    const { content } = await runCsv(corpusFile('vega_seattle-weather.csv'));
    expect(content.columns.map((c: any) => c.type)).toEqual(['date', 'number', 'number', 'number', 'number', 'string']);
    expect(content.rows[0]).toEqual(['2012-01-01', 0, 12.8, 5, 4.7, 'drizzle']);
  });

  it('US dates with times become ISO datetimes (ks_1033)', async () => {
    const { content } = await runCsv(corpusFile('csvkit_ks_1033_data.csv'));
    const ship = content.columns.find((c: any) => c.name === 'ship_date');
    expect(ship).toMatchObject({ type: 'datetime', sourceFormat: 'M/D/YYYY' });
    expect(content.rows[0][9]).toBe('2006-05-19T00:00:00');
    expect(content.rows[0][4]).toBe('RIFLE,5.56 MILLIMETER');
  });

  it('two-digit-year US dates (test_geo last_seen_date)', async () => {
    const { content } = await runCsv(corpusFile('csvkit_test_geo.csv'));
    const col = content.columns.find((c: any) => c.name === 'last_seen_date');
    expect(col).toMatchObject({ type: 'date', sourceFormat: 'M/D/YY' });
    expect(content.rows[0][col.index]).toBe('2012-03-30');
  });

  it('zip codes with leading zeros stay strings', async () => {
    const { content } = await runCsv(corpusFile('vega_zipcodes.csv'));
    expect(content.columns[0]).toMatchObject({ name: 'zip_code', type: 'string' });
    expect(content.rows[0][0]).toBe('00501');
  });

  it('birdstrikes: 10000 rows, dates and numeric costs', async () => {
    const { content } = await runCsv(corpusFile('vega_birdstrikes.csv'));
    const t = Object.fromEntries(content.columns.map((c: any) => [c.name, c.type]));
    expect(t['Flight Date']).toBe('date');
    expect(t['Cost Total $']).toBe('integer');
    expect(content.rows[0][3]).toBe('1990-01-08');
  });

  it('integers beyond 2^53 are kept as strings and the column says so', async () => {
    const file = await tempFile('big.csv', 'id,v,b,f\n9007199254740993,1,true,0.1\n12,2,FALSE,1.2345678901234567890123\n,3,,\n');
    const { content, outcome } = await runCsv(file);
    expect(content.columns[0]).toMatchObject({ type: 'integer', jsonType: 'string', nullCount: 1 });
    expect(content.columns[1]).toMatchObject({ type: 'integer', jsonType: 'number' });
    expect(content.columns[2]).toMatchObject({ type: 'boolean', jsonType: 'boolean' });
    expect(content.columns[3]).toMatchObject({ type: 'number', jsonType: 'string' });
    expect(content.rows).toEqual([
      ['9007199254740993', 1, true, '0.1'],
      ['12', 2, false, '1.2345678901234567890123'],
      [null, 3, null, null],
    ]);
    expect(outcome.warnings.join(' ')).toMatch(/beyond 2\^53/);
  });

  it('null markers (NA, NULL) do not turn a numeric column into text', async () => {
    const { content } = await runCsv(await tempFile('na.csv', 'x,s\n1.5,NA\nNA,b\nNULL,c\n2,d\n'));
    expect(content.columns[0]).toMatchObject({ type: 'number', nullCount: 2 });
    expect(content.columns[1]).toMatchObject({ type: 'string', nullCount: 0 });
    expect(content.rows.map((r: any) => r[0])).toEqual([1.5, null, null, 2]);
    expect(content.rows[0][1]).toBe('NA');
  });

  it('day-first dates are recognised when a day exceeds 12; ISO datetimes keep their zone', async () => {
    const file = await tempFile('d.csv', 'd,t\n01/02/2020,2020-01-02T03:04:05Z\n25/12/2020,2020-01-02 03:04:05+02:00\n');
    const { content } = await runCsv(file);
    expect(content.columns[0]).toMatchObject({ type: 'date', sourceFormat: 'D/M/YYYY' });
    expect(content.rows.map((r: any) => r[0])).toEqual(['2020-02-01', '2020-12-25']);
    expect(content.rows.map((r: any) => r[1])).toEqual(['2020-01-02T03:04:05Z', '2020-01-02T03:04:05+02:00']);
  });

  it('progress is reported and reaches 1', async () => {
    const { progress } = await runCsv(corpusFile('vega_zipcodes.csv'));
    expect(progress.length).toBeGreaterThan(2);
    expect(progress[progress.length - 1]).toBe(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]);
  });
});
