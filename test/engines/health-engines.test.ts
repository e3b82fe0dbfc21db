// /health/ready and /health/node-state list the engines a node found at start, with their
// versions (Tesseract with its languages), and the OpenAPI document describes them.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestEnv, destroyTestEnv, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const ENGINES = ['PDFium', 'Tesseract', 'LibreOffice', 'GDAL', 'LibreDWG', 'hyparquet'];
const version = async (name: string) =>
  (JSON.parse(await fs.readFile(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;

let env: TestEnv;
let n: TestNode;
beforeAll(async () => {
  env = await createTestEnv('embedded');
  n = await startTestNode(env);
});
afterAll(async () => {
  await n?.close();
  await destroyTestEnv(env);
});

type Engine = {
  name: string;
  available: boolean;
  version: string | null;
  languages?: string[];
  packages: { name: string; version: string }[];
  usedFor: string;
};
type Engines = { available: Engine[]; missing: Engine[] };

describe('engines in the health endpoints (every engine installed)', () => {
  it('/health/ready lists every engine as available, with versions; none missing', async () => {
    // LibreOffice's version is read in the background at start: it fills in shortly.
    const body = await waitFor(
      async () => {
        const r = (await (await fetch(`${n.url}/health/ready`)).json()) as { status: string; engines?: Engines };
        return r.engines?.available.find((e) => e.name === 'LibreOffice')?.version ? r : null;
      },
      "LibreOffice's version",
      20_000,
    );
    expect(body.status).toBe('ready');
    const engines = body.engines!;
    expect(engines.missing).toEqual([]);
    expect(engines.available.map((e) => e.name)).toEqual(ENGINES);
    const by = Object.fromEntries(engines.available.map((e) => [e.name, e]));
    expect(by.PDFium.version).toBe(`@embedpdf/pdfium ${await version('@embedpdf/pdfium')}`);
    expect(by.Tesseract).toMatchObject({ version: `tesseract-wasm ${await version('tesseract-wasm')}`, languages: expect.arrayContaining(['eng']) });
    expect(by.LibreOffice.version).toMatch(/^LibreOffice \d+\.\d+\.\d+/);
    expect(by.GDAL.version).toBe(`gdal3.js ${await version('gdal3.js')}`);
    expect(by.LibreDWG.version).toBe(`@mlightcad/libredwg-web ${await version('@mlightcad/libredwg-web')}`);
    expect(by.hyparquet.packages.map((p) => p.name)).toEqual(['hyparquet', 'hyparquet-compressors']);
    for (const e of engines.available) expect(e.usedFor, e.name).toBeTruthy();
    // Public endpoint: no file-system paths.
    expect(JSON.stringify(engines)).not.toMatch(/\/usr\/|node_modules|"location"/);
  });

  it('/health/node-state carries the same list', async () => {
    const ready = (await (await fetch(`${n.url}/health/ready`)).json()) as { engines: Engines };
    const state = (await (await fetch(`${n.url}/health/node-state`)).json()) as { engines: Engines };
    expect(state.engines).toEqual(ready.engines);
  });

  it('the OpenAPI document describes `engines` on both responses and stays valid', async () => {
    const doc = (await (await fetch(`${n.url}/openapi/v1.json`)).json()) as any;
    const r = await new Validator().validate(structuredClone(doc));
    expect(r.errors ?? []).toEqual([]);
    const schemaOf = (p: string) => doc.paths[p].get.responses['200'].content['application/json'].schema;
    for (const p of ['/health/ready', '/health/node-state']) {
      const s = schemaOf(p);
      const engines = s.properties?.engines ?? doc.components?.schemas?.[s.$ref?.split('/').pop()]?.properties?.engines;
      expect(engines, p).toBeTruthy();
      expect(JSON.stringify(engines)).toContain('missing');
    }
  });
});
