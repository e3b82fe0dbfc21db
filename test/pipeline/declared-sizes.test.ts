// Issue 27, end to end through a node: documents whose declared sizes lie are billed for what
// they hold, or refused before anything is allocated. A PDF that names one page 30,000 times
// completes as one page and one unit; Parquet files whose page headers or footers lie are
// refused as corrupt_document naming the field, charged nothing, with the parsing process's
// resident memory where it was. The files come from the fuzzer's generators
// (bench/fuzz/generators/pdf-lies.mjs, parquet-lies.mjs).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { monthOf } from '../../src/tenancy/month.js';
import { readRssMb } from '../../src/pipeline/parse-host.js';
// @ts-expect-error plain .mjs module shared with the fuzzer
import { repeatedPagePdf, repeatAmongPagesPdf } from '../../bench/fuzz/generators/pdf-lies.mjs';
// @ts-expect-error plain .mjs module shared with the fuzzer
import { honestParquet, lyingChunkSize, lyingDictionary, lyingPageSize, lyingRowCount, nullBomb } from '../../bench/fuzz/generators/parquet-lies.mjs';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

interface Status {
  statusInt: number;
  documentUnits?: number | null;
  startedAt?: string | null;
  completedAt?: string | null;
  error?: { code: string; message: string } | null;
}

let env: TestEnv;
let n: TestNode;
let app: { appId: string; token: string };

beforeAll(async () => {
  // One parsing thread: every job runs where the memory is measured, one after the other.
  env = await createTestEnv('embedded', { DOCPARSE_WORKER_THREADS: '1' });
  n = await startTestNode(env);
  const created = await createApp(n.node, { maxDocumentUnitsPerMonth: 10, advancedPdfExtraction: true, ocrPdfExtraction: true });
  app = { appId: created.appId, token: await getToken(n.url, created.clientId, created.clientSecret) };
});
afterAll(async () => {
  await n?.close();
  await destroyTestEnv(env);
});

async function run(id: string, query: string, body: Buffer): Promise<Status> {
  const r = await fetch(`${n.url}/api/v1/documents/upload?documentId=${id}&${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.token}` },
    body,
  });
  expect(r.status).toBe(202);
  return waitFor(
    async () => {
      const s = (await (await fetch(`${n.url}/api/v1/documents/${id}/status`, { headers: { authorization: `Bearer ${app.token}` } })).json()) as Status;
      return s.statusInt === 8 || s.statusInt === 9 ? s : null;
    },
    `${id} to finish`,
    100_000,
  );
}

const used = () => n.node.controlPlane.unitsUsed(app.appId, monthOf(new Date()));
const charges = async (documentId: string) => (await n.node.controlPlane.listUsage({ appId: app.appId })).filter((c) => c.documentId === documentId);

describe('a PDF that names one page object 30,000 times, for an app allowed 10 units a month', () => {
  it.each(['SingleColumn', 'Ocr', 'Advanced'])('%s: completes as one page, charged one unit in the usage ledger', async (pdfMode) => {
    const before = await used();
    const id = `repeated-${pdfMode}`;
    const s = await run(id, `fileName=repeated.pdf&pdfMode=${pdfMode}`, repeatedPagePdf(30_000));
    expect(s).toMatchObject({ statusInt: 8, documentUnits: 1 });
    expect(await used()).toBe(before + 1);
    expect(await charges(id)).toMatchObject([{ format: 'pdf', units: 1 }]);
    const res = await fetch(`${n.url}/api/v1/documents/${id}/result`, { headers: { authorization: `Bearer ${app.token}` } });
    const text = await res.text();
    expect(text.length).toBeLessThan(8_000);
    const artifact = JSON.parse(text);
    expect(artifact.content.pages).toHaveLength(1);
    expect(artifact.metadata.pageTree).toEqual({ entries: 30_000, repeated: 29_999, missing: 0 });
  });

  it('a page named twice among three: three units', async () => {
    const before = await used();
    const s = await run('among', 'fileName=among.pdf&pdfMode=SingleColumn', repeatAmongPagesPdf());
    expect(s).toMatchObject({ statusInt: 8, documentUnits: 3 });
    expect(await used()).toBe(before + 3);
  });
});

describe('Parquet whose declared sizes lie (MetadataPlusRows)', () => {
  const query = (name: string) => `fileName=${name}.parquet&parquetMode=MetadataPlusRows`;

  beforeAll(async () => {
    // The parsing thread has read Parquet before the lies are measured.
    expect(await run('honest', query('honest'), honestParquet())).toMatchObject({ statusInt: 8, documentUnits: 1 });
  });

  const lies: [string, () => Buffer, 'corrupt_document' | 'document_too_complex', RegExp][] = [
    ['uncompressed_page_size 2,147,483,647 (Snappy)', () => lyingPageSize('SNAPPY'), 'corrupt_document', /uncompressed_page_size 2147483647/],
    ['uncompressed_page_size 2,147,483,647 (GZIP)', () => lyingPageSize('GZIP'), 'corrupt_document', /uncompressed_page_size 2147483647/],
    ['uncompressed_page_size 2,147,483,647 (version 2 page)', () => lyingPageSize('SNAPPY', 2), 'corrupt_document', /uncompressed_page_size 2147483647/],
    ['num_rows 2,147,483,647', lyingRowCount, 'corrupt_document', /declares 2147483647 rows \(num_rows\), but its column 'id' holds 400 values \(num_values\)/],
    ['a dictionary of 2,147,483,647 entries', lyingDictionary, 'corrupt_document', /declares 2147483647 entries \(num_values\)/],
    ['total_compressed_size past the end of the file', lyingChunkSize, 'corrupt_document', /total_compressed_size 2147483647/],
    [
      '2,147,483,647 null rows that agree with each other',
      nullBomb,
      'document_too_complex',
      /^Row group 0 would take about \d+ MB of memory to decode \(2147483647 rows/,
    ],
  ];

  it.each(lies)('%s: refused, charged nothing, the parsing process no larger', async (what, make, code, message) => {
    const pid = n.node.pool!.pid!;
    const rssBefore = readRssMb(pid)!;
    const before = await used();
    const id = `lie-${lies.findIndex((l) => l[0] === what)}`;
    const bytes = make();
    const s = await run(id, query(id), bytes);
    const rssAfter = readRssMb(pid)!;
    expect(s.statusInt).toBe(9);
    expect(s.error?.code).toBe(code);
    expect(s.error?.message).toMatch(message);
    expect(await used()).toBe(before);
    expect(await charges(id)).toEqual([]);
    expect(n.node.pool!.pid).toBe(pid);
    expect(rssAfter - rssBefore).toBeLessThan(64);
    // The figures for the record (not asserted: the machine is shared).
    const ms = Date.parse(s.completedAt!) - Date.parse(s.startedAt!);
    console.info(`${what}: ${bytes.length} bytes, ${code} after ${ms} ms; parsing process ${rssBefore} → ${rssAfter} MB`);
  });
});
