// Parquet rows (MetadataPlusRows) are read only after every size and count a row group
// declares has been held against the file's bytes (src/formats/parquet/declared-sizes.ts):
// a lie is refused as corrupt_document naming the field, before any page is decompressed;
// counts the bytes can hold but memory cannot are refused as document_too_complex. Honest
// files of every codec and page version read as before. The files are written by the fuzzer's
// generators (bench/fuzz/generators/parquet-lies.mjs), with one field changed.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseParquet } from '../../../src/formats/parquet/index.js';
import { parseFileWith, type ParseResult } from '../../helpers/parse.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import {
  honestParquet,
  lyingChunkSize,
  lyingDictionary,
  lyingPageSize,
  lyingRowCount,
  nullBomb,
  rewriteParquet,
  // @ts-expect-error plain .mjs module shared with the fuzzer
} from '../../../bench/fuzz/generators/parquet-lies.mjs';

const INT32_MAX = 2_147_483_647;
let dir: string;
let seq = 0;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-parquet-lies-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function rows(bytes: Buffer, settings = parserSettings()): Promise<ParseResult> {
  const file = path.join(dir, `f${++seq}.parquet`);
  await fs.writeFile(file, bytes);
  return parseFileWith(parseParquet, file, 'parquet', { parquetMode: 'MetadataPlusRows' }, 'f.parquet', settings);
}

function refused(r: ParseResult, code: string): string {
  if (r.ok) throw new Error('the file was read');
  expect(r.code).toBe(code);
  expect(r.transient).toBe(false);
  return r.message;
}

/** Every page of column `column` (data pages only: `data`) with `change` applied to its header. */
const pages = (column: string, change: (h: any) => any, data = true) => ({
  page: (header: any, bytes: Uint8Array, where: { column: string }) =>
    where.column === column && (!data || header.type !== 'DICTIONARY_PAGE') ? { header: change(header), data: bytes } : undefined,
});
/** The chunk of `column` also claims `size` bytes uncompressed, so the page's own bytes must give the lie away. */
const chunkClaims = (column: string, size: number) => (group: any) => {
  for (const c of group.columns) if (c.meta_data.path_in_schema.join('.') === column) c.meta_data.total_uncompressed_size = BigInt(size);
};

describe('honest files read as before', () => {
  for (const pageVersion of [1, 2])
    for (const codec of ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'ZSTD'])
      it(`${codec}, version ${pageVersion} pages: all 400 rows`, async () => {
        const r = await rows(rewriteParquet(honestParquet({ codec }), { pageVersion }));
        if (!r.ok) throw new Error(r.message);
        expect(r.artifact.content.rowsWritten).toBe(400);
        expect(r.artifact.content.rows[399]).toEqual({ id: 399, name: 'name number 19 of a generated table', score: 68.1 });
      });
});

describe('declared sizes that lie are refused as corrupt_document, naming the field', () => {
  it.each([
    ['SNAPPY', 1],
    ['GZIP', 1],
    ['SNAPPY', 2],
  ])('a %s page (version %s) claiming uncompressed_page_size 2,147,483,647', async (codec, version) => {
    const message = refused(await rows(lyingPageSize(codec, version)), 'corrupt_document');
    expect(message).toMatch(
      /^The Parquet file is damaged: row group 0, column 'score', page at byte \d+: uncompressed_page_size 2147483647 is larger than its whole column chunk \(total_uncompressed_size \d+\)\.$/,
    );
  });

  it('the same lie told by the column chunk too: the Snappy stream states its own length', async () => {
    const bytes = rewriteParquet(honestParquet(), {
      pageVersion: 1,
      ...pages('score', (h) => ({ ...h, uncompressed_page_size: INT32_MAX })),
      rowGroup: chunkClaims('score', INT32_MAX),
    });
    expect(refused(await rows(bytes), 'corrupt_document')).toMatch(
      /uncompressed_page_size 2147483647 does not match its data: its Snappy data decompresses to \d+ bytes\.$/,
    );
  });

  it('… a Zstandard frame states its content size', async () => {
    const bytes = rewriteParquet(honestParquet({ codec: 'ZSTD' }), {
      pageVersion: 2,
      ...pages('score', (h) => ({ ...h, uncompressed_page_size: INT32_MAX })),
      rowGroup: chunkClaims('score', INT32_MAX),
    });
    expect(refused(await rows(bytes), 'corrupt_document')).toMatch(
      /uncompressed_page_size 2147483647 does not match its data: its Zstandard frame holds \d+ bytes \(after \d+ bytes of levels\)\.$/,
    );
  });

  it('… GZIP data cannot decompress to more than 1032 times its size', async () => {
    const bytes = rewriteParquet(honestParquet({ codec: 'GZIP' }), {
      pageVersion: 1,
      ...pages('score', (h) => ({ ...h, uncompressed_page_size: INT32_MAX })),
      rowGroup: chunkClaims('score', INT32_MAX),
    });
    expect(refused(await rows(bytes), 'corrupt_document')).toMatch(
      /uncompressed_page_size 2147483647 does not match its data: \d+ bytes of GZIP data decompress to \d+ at most\.$/,
    );
  });

  it('… and stored bytes are what they are', async () => {
    const bytes = rewriteParquet(honestParquet({ codec: 'UNCOMPRESSED' }), {
      pageVersion: 1,
      ...pages('score', (h) => ({ ...h, uncompressed_page_size: INT32_MAX })),
      rowGroup: chunkClaims('score', INT32_MAX),
    });
    expect(refused(await rows(bytes), 'corrupt_document')).toMatch(
      /uncompressed_page_size 2147483647 does not match its data: \d+ bytes are stored uncompressed\.$/,
    );
  });

  it('a row group claiming 2,147,483,647 rows (num_rows) over 400', async () => {
    expect(refused(await rows(lyingRowCount()), 'corrupt_document')).toBe(
      "The Parquet file is damaged: row group 0: it declares 2147483647 rows (num_rows), but its column 'id' holds 400 values (num_values).",
    );
  });

  it('… with every count in the footer and the pages agreeing: a required column stores each value', async () => {
    const lie = 1_000_000_000;
    const bytes = rewriteParquet(honestParquet({ codec: 'UNCOMPRESSED' }), {
      pageVersion: 1,
      page: (header: any, data: Uint8Array) =>
        header.type === 'DATA_PAGE' ? { header: { ...header, data_page_header: { ...header.data_page_header, num_values: lie } }, data } : undefined,
      rowGroup: (group: any) => {
        group.num_rows = BigInt(lie);
        for (const c of group.columns) c.meta_data.num_values = BigInt(lie);
      },
    });
    expect(refused(await rows(bytes), 'corrupt_document')).toMatch(
      /^The Parquet file is damaged: row group 0, column 'id', page at byte \d+: it declares 1000000000 values \(num_values\), more than its \d+ bytes can hold\.$/,
    );
  });

  it("a column's pages holding other than its num_values", async () => {
    const bytes = rewriteParquet(honestParquet(), {
      pageVersion: 1,
      ...pages('name', (h) => ({ ...h, data_page_header: { ...h.data_page_header, num_values: 399 } })),
    });
    expect(refused(await rows(bytes), 'corrupt_document')).toBe(
      "The Parquet file is damaged: row group 0, column 'name': it declares 400 values (num_values), but its pages hold 399.",
    );
  });

  it('a dictionary page claiming 2,147,483,647 entries', async () => {
    expect(refused(await rows(lyingDictionary()), 'corrupt_document')).toMatch(
      /^The Parquet file is damaged: row group 0, column 'name', page at byte \d+: its dictionary declares 2147483647 entries \(num_values\), more than its 770 bytes can hold\.$/,
    );
  });

  it('a column chunk claiming total_compressed_size 2,147,483,647 in a 4 KB file', async () => {
    expect(refused(await rows(lyingChunkSize()), 'corrupt_document')).toMatch(
      /^The Parquet file is damaged: row group 0, column 'id': its pages \(data_page_offset 4, total_compressed_size 2147483647\) run to byte 2147483651, past the end of the data at byte \d+\.$/,
    );
  });

  it('a page claiming more compressed bytes than its column chunk has', async () => {
    const bytes = rewriteParquet(honestParquet(), { pageVersion: 1, ...pages('id', (h) => ({ ...h, compressed_page_size: 100_000 })) });
    expect(refused(await rows(bytes), 'corrupt_document')).toMatch(
      /column 'id', page at byte 4: compressed_page_size 100000 runs past the end of its column chunk/,
    );
  });

  it('a page header without its compressed_page_size: the missing field is named', async () => {
    const bytes = rewriteParquet(honestParquet(), { pageVersion: 1, ...pages('id', (h) => ({ ...h, compressed_page_size: undefined })) });
    expect(refused(await rows(bytes), 'corrupt_document')).toMatch(
      /^The Parquet file is damaged: row group 0, column 'id', page at byte 4: it gives no compressed_page_size\.$/,
    );
  });

  it('MetadataOnly still describes the footer of such a file (no page is read)', async () => {
    const file = path.join(dir, 'metadata-only.parquet');
    await fs.writeFile(file, lyingRowCount());
    const r = await parseFileWith(parseParquet, file, 'parquet', { parquetMode: 'MetadataOnly' });
    if (!r.ok) throw new Error(r.message);
    expect(r.artifact.content.numRows).toBe(INT32_MAX);
  });
});

describe('counts the bytes can hold but memory cannot: document_too_complex before decoding', () => {
  it('2,147,483,647 null rows in one 50-byte RLE run', async () => {
    const bytes: Buffer = nullBomb();
    expect(bytes.length).toBeLessThan(200);
    expect(refused(await rows(bytes), 'document_too_complex')).toMatch(
      /^Row group 0 would take about \d+ MB of memory to decode \(2147483647 rows, 2147483647 values\), more than the 1024 MB one parse may use; parquetMode=MetadataOnly reads its metadata\.$/,
    );
  });

  it('an honest row group larger than the task memory budget', async () => {
    const bytes = honestParquet({ rows: 100_000 });
    const message = refused(await rows(bytes, parserSettings({ memory: { maxBytes: 4 * 1024 * 1024 } })), 'document_too_complex');
    expect(message).toMatch(/^Row group 0 would take about \d+ MB of memory to decode \(100000 rows, 300000 values\), more than the 4 MB one parse may use/);
    // The default budget reads it.
    const r = await rows(bytes);
    expect(r.ok && r.artifact.content.rowsWritten).toBe(100_000);
  });
});
