// Every wired format family through the real API (embedded node): the upload is detected,
// routed, parsed in a worker thread, served as JSON, and charged the family's Document Units.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { corpusPath } from '../helpers/parse.js';

const MBOX = 'synthetic__gmail-takeout-style.mbox';
const PDF_FILE = 'camelot__column_span_1.pdf';
const PG_FILE = 'pg__case.sql';

let env: TestEnv;
let n: TestNode;
let token: string;

beforeAll(async () => {
  env = await createTestEnv('embedded', { DOCPARSE_WORKER_THREADS: '2' });
  n = await startTestNode(env);
  token = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
});
afterAll(async () => {
  await n?.close();
  if (env) await destroyTestEnv(env);
});

async function run(file: string, query: Record<string, string>): Promise<{ status: any; artifact: any }> {
  const body = await fs.readFile(file);
  const res = await fetch(`${n.url}/api/v1/documents/upload?${new URLSearchParams(query)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body,
  });
  expect(res.status, await res.clone().text()).toBe(202);
  const { documentId } = (await res.json()) as { documentId: string };
  const status = await waitFor(
    async () => {
      const s = (await (await fetch(`${n.url}/api/v1/documents/${documentId}/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as any;
      return s.statusInt === 8 || s.statusInt === 9 ? s : null;
    },
    `${file} to finish`,
    120_000,
  );
  const r = await fetch(`${n.url}/api/v1/documents/${documentId}/result`, { headers: { authorization: `Bearer ${token}` } });
  return { status, artifact: await r.json() };
}

// run() waits up to 120 s for a job (OCR on a loaded CI machine): the tests get more than the global 60 s.
describe('format families through the API', { timeout: 300_000 }, () => {
  it('PDF: billed per page; OCR and Advanced run in the heavy lane and complete', async () => {
    const single = await run(corpusPath('pdf', PDF_FILE), { pdfMode: 'SingleColumn', chunkHints: 'true' });
    expect(single.status.statusInt).toBe(8);
    expect(single.artifact.document_format).toBe('pdf');
    expect(single.artifact.documentUnits).toBe(single.artifact.content.pages.length);
    expect(Array.isArray(single.artifact.chunks)).toBe(true);
    const advanced = await run(corpusPath('pdf', PDF_FILE), { pdfMode: 'Advanced' });
    expect(advanced.status.statusInt).toBe(8);
    expect(advanced.artifact.documentUnits).toBe(single.artifact.documentUnits);
  });

  it('PDF: an encrypted file without its password fails as encrypted_document', async () => {
    const { status } = await run(corpusPath('pdf', 'pysample__libreoffice-writer-password.pdf'), { pdfMode: 'SingleColumn' });
    expect(status.statusInt).toBe(9);
    expect(status.error.code).toBe('encrypted_document');
  });

  it('GIS: a ZIP of six shapefiles is six datasets, six units', async () => {
    const { status, artifact } = await run(corpusPath('gis', 'shp_multilayer_6.zip'), { fileName: 'layers.zip', documentType: 'SHP_ZIP' });
    expect(status.statusInt).toBe(8);
    expect(artifact.document_format).toBe('shapefile');
    expect(artifact.documentUnits).toBe(6);
    expect(artifact.content.datasets).toHaveLength(6);
    expect(status.documentUnits).toBe(6);
  });

  it('GIS: a GeoPackage is detected by its bytes', async () => {
    const { status, artifact } = await run(corpusPath('gis', 'gpkg_poly_golden.gpkg'), {});
    expect(status.statusInt).toBe(8);
    expect(artifact.document_format).toBe('geopackage');
    expect(artifact.documentUnits).toBeGreaterThanOrEqual(1);
  });

  it('CAD: a DWG is one unit with layers and entity counts', async () => {
    const { status, artifact } = await run(corpusPath('cad', 'dwg_example_2018.dwg'), {});
    expect(status.statusInt).toBe(8);
    expect(artifact.document_format).toBe('dwg');
    expect(artifact.documentUnits).toBe(1);
    expect(artifact.content.layers.length).toBeGreaterThan(0);
  });

  it('CAD: a DXF is one unit', async () => {
    const { status, artifact } = await run(corpusPath('cad', 'dxf_example_2000.dxf'), { fileName: 'example.dxf' });
    expect(status.statusInt).toBe(8);
    expect(artifact.document_format).toBe('dxf');
    expect(artifact.documentUnits).toBe(1);
  });

  it('CAD: a truncated DWG fails with a reason (422), nothing charged', async () => {
    const { status, artifact } = await run(corpusPath('cad', 'bad_dwg_truncated_2018.dwg'), {});
    expect(status.statusInt).toBe(9);
    expect(status.error.code).toBe('extraction_failed');
    expect(artifact.code).toBe('extraction_failed');
  });

  it('Office: a DOCX is detected from its ZIP entries and billed by pages; XLSX by sheets', async () => {
    const docx = await run(corpusPath('office', 'tika__testWORD.docx'), {});
    expect(docx.status.statusInt).toBe(8);
    expect(docx.artifact.document_format).toBe('docx');
    expect(docx.artifact.documentUnits).toBeGreaterThanOrEqual(1);
    const xlsx = await run(corpusPath('office', 'tika__testEXCEL.xlsx'), { chunkHints: 'true' });
    expect(xlsx.status.statusInt).toBe(8);
    expect(xlsx.artifact.document_format).toBe('xlsx');
    expect(xlsx.artifact.documentUnits).toBe(xlsx.artifact.content.sheets.length);
  });

  it('Office: a password-protected DOCX fails as encrypted_document (422)', async () => {
    const { status, artifact } = await run(corpusPath('office', 'tika__testWORD_protected_passtika.docx'), { fileName: 'protected.docx' });
    expect(status.statusInt).toBe(9);
    expect(status.error.code).toBe('encrypted_document');
    expect(artifact.status).toBe(422);
  });

  it('Email: an MBOX is billed per message; an EML is one', async () => {
    const mbox = await run(corpusPath('email', MBOX), {});
    expect(mbox.status.statusInt).toBe(8);
    expect(mbox.artifact.document_format).toBe('mbox');
    expect(mbox.artifact.documentUnits).toBe(mbox.artifact.content.messages.length);
    expect(mbox.artifact.documentUnits).toBeGreaterThan(1);
    const eml = await run(corpusPath('email', 'mailparser__nested.eml'), {});
    expect(eml.status.statusInt).toBe(8);
    expect(eml.artifact.documentUnits).toBe(1);
  });

  it('SQL: sqlDialect spellings are matched; units are statements', async () => {
    const { status, artifact } = await run(corpusPath('sql', PG_FILE), { fileName: 'schema.sql', sqlDialect: 'postgresql' });
    expect(status.statusInt).toBe(8);
    expect(artifact.document_format).toBe('sql');
    expect(artifact.documentUnits).toBe(artifact.content.statements.length);
    expect(artifact.documentUnits).toBeGreaterThan(1);
  });

  it('Parquet: metadata by default, rows on request', async () => {
    const meta = await run(corpusPath('parquet', 'pqt_alltypes_plain.parquet'), {});
    expect(meta.status.statusInt).toBe(8);
    expect(meta.artifact.document_format).toBe('parquet');
    expect(meta.artifact.documentUnits).toBe(1);
    // No row values in MetadataOnly (the row groups still say which rows they span), and the
    // completeness block says the rows were skipped.
    expect((meta.artifact.content as { rows?: unknown }).rows).toBeUndefined();
    expect(meta.artifact.completeness.rows).toMatchObject({ found: 8, emitted: 0, skipped: 8 });
    const rows = await run(corpusPath('parquet', 'pqt_alltypes_plain.parquet'), { parquetMode: 'metadataplusrows' });
    expect(rows.status.statusInt).toBe(8);
    expect((rows.artifact.content as { rows?: unknown[] }).rows).toHaveLength(8);
    expect(rows.artifact.completeness.rows).toMatchObject({ found: 8, emitted: 8, skipped: 0 });
  });
});

describe('heavy and light lanes', () => {
  it('OCR jobs wait in 6/run in 7 within their slots while a CSV job passes them', async () => {
    const lanesEnv = await createTestEnv('embedded', { DOCPARSE_WORKER_THREADS: '2', DOCPARSE_HEAVY_SLOTS: '1' });
    const node = await startTestNode(lanesEnv);
    try {
      const tok = await getToken(node.url, 'demo-client', 'demo-secret-0123456789');
      const scan = await fs.readFile(corpusPath('pdf', 'generated__scanned-3p.pdf'));
      const ocrIds: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${node.url}/api/v1/documents/upload?fileName=scan.pdf&pdfMode=Ocr&documentId=ocr-${i}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tok}` },
          body: scan,
        });
        expect(r.status).toBe(202);
        ocrIds.push(`ocr-${i}`);
      }
      const statusOf = async (id: string) =>
        (await (await fetch(`${node.url}/api/v1/documents/${id}/status`, { headers: { authorization: `Bearer ${tok}` } })).json()) as any;
      // Heavy jobs are visible as waiting-for-provider (6) or provider-processing (7).
      const heavyStates = await Promise.all(ocrIds.map(statusOf));
      expect(heavyStates.every((s) => s.statusInt === 6 || s.statusInt === 7)).toBe(true);
      const csv = await fetch(`${node.url}/api/v1/documents/upload?fileName=x.csv&csvRoute=Tabular&documentId=light-1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tok}` },
        body: 'a,b\n1,2\n',
      });
      expect(csv.status).toBe(202);
      await waitFor(async () => (await statusOf('light-1')).statusInt === 8, 'the light job', 60_000);
      const stillHeavy = await Promise.all(ocrIds.map(statusOf));
      // With one heavy slot, at most one OCR job runs at a time; the light job did not queue behind them.
      expect(stillHeavy.filter((s) => s.statusInt === 7).length).toBeLessThanOrEqual(1);
      expect(stillHeavy.some((s) => s.statusInt === 6 || s.statusInt === 7)).toBe(true);
      const done = await waitFor(
        async () => {
          const all = await Promise.all(ocrIds.map(statusOf));
          return all.every((s) => s.statusInt === 8) ? all : null;
        },
        'the OCR jobs',
        240_000,
      );
      expect(done.map((s) => s.documentUnits)).toEqual([3, 3, 3]);
    } finally {
      await node.close();
      await destroyTestEnv(lanesEnv);
    }
  }, 330_000); // its own waits allow 60 s for the light job and 240 s for the OCR jobs
});

describe('GIS features past the inline cap', { timeout: 300_000 }, () => {
  it('are served as a result part, every omitted feature once', async () => {
    // The node's config hands the cap to its parsing process and threads.
    const capEnv = await createTestEnv('embedded', { DOCPARSE_WORKER_THREADS: '1', DOCPARSE_GIS_MAX_INLINE_FEATURES: '3' });
    const node = await startTestNode(capEnv);
    try {
      const tok = await getToken(node.url, 'demo-client', 'demo-secret-0123456789');
      const body = await fs.readFile(corpusPath('gis', 'shp_poly.zip'));
      const r = await fetch(`${node.url}/api/v1/documents/upload?documentType=ShpZip&documentId=capped`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tok}` },
        body,
      });
      expect(r.status).toBe(202);
      const auth = { headers: { authorization: `Bearer ${tok}` } };
      await waitFor(async () => ((await (await fetch(`${node.url}/api/v1/documents/capped/status`, auth)).json()) as any).statusInt === 8, 'completion');
      const artifact = (await (await fetch(`${node.url}/api/v1/documents/capped/result`, auth)).json()) as any;
      const ds = artifact.content.datasets[0];
      expect(ds.features).toHaveLength(3);
      expect(ds.featuresTruncated).toBe(true);
      expect(ds.featuresPart).toMatch(/\.geojsonseq$/);
      const part = await fetch(`${node.url}/api/v1/documents/capped/parts/${ds.featuresPart}`, auth);
      expect(part.status).toBe(200);
      expect(part.headers.get('content-type')).toBe('application/geo+json-seq');
      const records = (await part.text()).split('\x1e').filter((x) => x.trim());
      expect(records).toHaveLength(ds.featuresOmitted);
      expect(ds.features.length + records.length).toBe(ds.featureCount);
      for (const rec of records) expect(JSON.parse(rec).type).toBe('Feature');
      const missing = await fetch(`${node.url}/api/v1/documents/capped/parts/nope.geojsonseq`, auth);
      expect(missing.status).toBe(404);
    } finally {
      await node.close();
      await destroyTestEnv(capEnv);
    }
  });

  // Runs last: every family above has been through the node by now. Parsers that need a
  // scratch folder (GIS, e-mail attachments) get one; nothing of any job stays behind.
  it("leaves nothing in the node's scratch folder once its jobs are done", async () => {
    const work = path.join(env.dataDir, 'work');
    const left = await fs.readdir(work).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)));
    expect(left).toEqual([]);
  });
});
