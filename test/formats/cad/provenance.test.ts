// CAD provenance and completeness (issue 32, items 3–4). On every corpus drawing: the
// completeness block's totals equal the artifact (layouts, empty layouts, entities; the
// entity types LibreDWG's converter drops skipped with the reason, as many as the warning
// names) and each entity's provenance names its own handle and the layout of its block
// record. On a corpus DXF the handles are checked against the file's text itself (group code
// 5 of each record in ENTITIES and BLOCKS). On a generated DXF: model space, a paper space, a
// block definition, an entity without a handle, an empty layout, and an e-mail's provenance.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDwg, parseDxf } from '../../../src/formats/cad/index.js';
import { CORPUS_AVAILABLE, corpusPath, parseFileWith, readManifest, artifactOf } from '../../helpers/parse.js';
import { expectCompletenessAddsUp } from '../../helpers/completeness.js';

/** Block record name (upper case) → layout name, from the artifact's own layouts. */
function layoutOfBlock(c: Record<string, any>): Map<string, string> {
  const out = new Map<string, string>([['*MODEL_SPACE', 'Model']]);
  for (const l of c.layouts) if (l.block) out.set(l.block.toUpperCase(), l.name);
  return out;
}

const parseCad = (file: string, within?: Record<string, unknown>) =>
  parseFileWith(
    async (input, w) => (file.endsWith('.dwg') ? parseDwg : parseDxf)({ ...input, ...(within ? { within } : {}) }, w),
    file,
    file.endsWith('.dwg') ? 'dwg' : 'dxf',
  );

const drawings = CORPUS_AVAILABLE ? (await readManifest('cad')).map((r) => r.file).filter((f) => !f.startsWith('bad_')) : [];

describe.skipIf(!CORPUS_AVAILABLE)('CAD completeness and provenance on every corpus drawing', () => {
  it('the corpus has drawings', () => expect(drawings.length).toBeGreaterThanOrEqual(25));

  for (const file of drawings) {
    it(file, async () => {
      const a = artifactOf(await parseCad(corpusPath('cad', file)));
      const c = a.content;
      expectCompletenessAddsUp(a.completeness);
      const perBlock = new Map<string, number>();
      for (const e of c.entities) perBlock.set(e.block.toUpperCase(), (perBlock.get(e.block.toUpperCase()) ?? 0) + 1);
      const empty = c.layouts.filter((l: any) => !(l.block && perBlock.get(l.block.toUpperCase()))).length;
      expect(a.completeness.layouts).toMatchObject({ found: c.layouts.length, emitted: c.layouts.length, empty });
      expect(a.completeness.entities.emitted).toBe(c.entities.length);
      // the types the converter drops, as the warning names them, are the entities skipped
      const dropped = /does not turn into entities \(counted in fileEntityCounts only\): (.*)$/m.exec(a.warnings.join('\n'))?.[1] ?? '';
      const droppedCount = [...dropped.matchAll(/×(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
      expect(a.completeness.entities.skipped).toBe(droppedCount);
      expect(a.completeness.entities.failed).toBe(0);
      for (const g of a.completeness.entities.gaps) expect(g.reason).toMatch(/^LibreDWG's converter does not turn \S+ entities into entities/);
      const layouts = layoutOfBlock(c);
      for (const list of [c.entities, c.texts, c.dimensions]) {
        for (const e of list) {
          const layout = layouts.get(e.block.toUpperCase());
          expect(e.provenance).toEqual({ ...(layout ? { layout } : {}), ...(e.handle ? { handle: e.handle } : {}) });
        }
      }
    });
  }

  it('dwg_example_2000: REGION, ARC_DIMENSION, POLYLINE_PFACE and LIGHT are skipped, each with the reason', async () => {
    const a = artifactOf(await parseCad(corpusPath('cad', 'dwg_example_2000.dwg')));
    expect(a.completeness.complete).toBe(false);
    expect(a.completeness.entities).toMatchObject({ found: 213, emitted: 208, skipped: 5 });
    expect(a.completeness.entities.gaps.map((g: any) => g.reason)).toEqual(
      ['REGION', 'ARC_DIMENSION', 'POLYLINE_PFACE', 'LIGHT'].map(
        (t) => `LibreDWG's converter does not turn ${t} entities into entities; they are counted in fileEntityCounts only.`,
      ),
    );
    // the same drawing saved as DXF holds them all, and the same layouts
    const dxf = artifactOf(await parseCad(corpusPath('cad', 'dxf_example_2000.dxf')));
    expect(dxf.completeness.entities).toMatchObject({ found: 213, emitted: 213, skipped: 0 });
    expect(dxf.content.layouts.map((l: any) => l.name).sort()).toEqual(['Layout1', 'Layout2', 'Model']);
  });
});

/** Each record of a DXF section as its group codes: [type, Map code → first value]. */
function rawRecords(text: string, section: string): { type: string; codes: Map<number, string> }[] {
  const lines = text.split(/\r?\n/);
  const out: { type: string; codes: Map<number, string> }[] = [];
  let inside = false;
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const code = Number(lines[i].trim());
    const value = lines[i + 1].trim();
    if (code === 0 && value === 'SECTION' && lines[i + 2]?.trim() === '2' && lines[i + 3]?.trim() === section) {
      inside = true;
      i += 2;
      continue;
    }
    if (!inside) continue;
    if (code === 0 && value === 'ENDSEC') break;
    if (code === 0) out.push({ type: value, codes: new Map() });
    else if (out.length && !out[out.length - 1].codes.has(code)) out[out.length - 1].codes.set(code, value);
  }
  return out;
}

describe.skipIf(!CORPUS_AVAILABLE)('CAD handles against the DXF text (group code 5)', () => {
  it('dxf_example_2000: every entity record of ENTITIES and BLOCKS is an entity with its handle; model space entities are in layout Model', async () => {
    const file = corpusPath('cad', 'dxf_example_2000.dxf');
    const text = await fs.readFile(file, 'latin1');
    const c = artifactOf(await parseCad(file)).content;
    const byHandle = new Map<string, any>(c.entities.map((e: any) => [e.provenance.handle, e]));
    expect(byHandle.size).toBe(c.entities.length); // one entity per handle
    // VERTEX and SEQEND are folded into their POLYLINE; BLOCK/ENDBLK delimit definitions
    const notEntities = new Set(['VERTEX', 'SEQEND', 'BLOCK', 'ENDBLK']);
    const entities = rawRecords(text, 'ENTITIES').filter((r) => !notEntities.has(r.type));
    const blocks = rawRecords(text, 'BLOCKS').filter((r) => !notEntities.has(r.type));
    expect(entities.length).toBeGreaterThan(50);
    expect(entities.length + blocks.length).toBe(c.entities.length);
    for (const r of [...entities, ...blocks]) {
      const e = byHandle.get(r.codes.get(5)!);
      expect(e, `handle ${r.codes.get(5)}`).toBeDefined();
      expect(e.type.replace(/^POLYLINE.*/, 'POLYLINE')).toBe(r.type);
    }
    for (const r of entities.filter((x) => x.codes.get(67) !== '1')) expect(byHandle.get(r.codes.get(5)!).provenance.layout).toBe('Model');
    for (const r of entities.filter((x) => x.codes.get(67) === '1')) expect(['Layout1', 'Layout2']).toContain(byHandle.get(r.codes.get(5)!).provenance.layout);
  });
});

/** A small R2000 DXF: two layouts with entities, an empty one, a block definition, an entity without a handle. */
function generatedDxf(): string {
  const g = (...pairs: (string | number)[]) => pairs.map(String).join('\n');
  const layout = (handle: string, name: string, tab: number, btr: string) =>
    g(0, 'LAYOUT', 5, handle, 100, 'AcDbPlotSettings', 1, '', 100, 'AcDbLayout', 1, name, 71, tab, 330, btr);
  const block = (owner: string, name: string, body = '') =>
    g(0, 'BLOCK', 330, owner, 2, name, 70, 0, 10, 0, 20, 0) + (body ? '\n' + body : '') + '\n' + g(0, 'ENDBLK');
  return [
    g(0, 'SECTION', 2, 'HEADER', 9, '$ACADVER', 1, 'AC1015', 0, 'ENDSEC'),
    g(0, 'SECTION', 2, 'TABLES', 0, 'TABLE', 2, 'BLOCK_RECORD'),
    g(0, 'BLOCK_RECORD', 5, '1F', 2, '*Model_Space', 340, '22'),
    g(0, 'BLOCK_RECORD', 5, '1B', 2, '*Paper_Space', 340, '1E'),
    g(0, 'BLOCK_RECORD', 5, '2B', 2, '*Paper_Space0', 340, '2E'),
    g(0, 'BLOCK_RECORD', 5, '3A', 2, 'DOOR'),
    g(0, 'ENDTAB', 0, 'ENDSEC'),
    g(0, 'SECTION', 2, 'BLOCKS'),
    block('1F', '*Model_Space'),
    block('1B', '*Paper_Space'),
    block('2B', '*Paper_Space0'),
    block('3A', 'DOOR', g(0, 'LINE', 5, '3C', 8, '0', 10, 0, 20, 0, 11, 0.9, 21, 2.1)),
    g(0, 'ENDSEC'),
    g(0, 'SECTION', 2, 'ENTITIES'),
    g(0, 'LINE', 5, 'A1', 330, '1F', 8, 'Walls', 10, 0, 20, 0, 11, 10, 21, 0),
    g(0, 'POINT', 8, 'Survey', 10, 5, 20, 5),
    g(0, 'CIRCLE', 5, 'A2', 330, '1B', 67, 1, 8, 'Title', 10, 1, 20, 1, 40, 0.5),
    g(0, 'INSERT', 5, 'A3', 330, '1F', 8, 'Doors', 2, 'DOOR', 10, 4, 20, 0),
    g(0, 'ENDSEC'),
    g(0, 'SECTION', 2, 'OBJECTS'),
    layout('22', 'Model', 0, '1F'),
    layout('1E', 'Sheet A', 1, '1B'),
    layout('2E', 'Sheet B', 2, '2B'),
    g(0, 'ENDSEC', 0, 'EOF'),
  ].join('\n');
}

describe('CAD provenance on a generated DXF', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-cad-prov-'));
    file = path.join(dir, 'plan.dxf');
    await fs.writeFile(file, generatedDxf() + '\n');
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('each entity names its layout and handle; a block definition’s entity has no layout, an entity without a handle no handle', async () => {
    const a = artifactOf(await parseCad(file));
    const prov = Object.fromEntries(a.content.entities.map((e: any) => [`${e.type} ${e.block}`, e.provenance]));
    expect(prov).toEqual({
      'LINE DOOR': { handle: '3C' },
      'LINE *Model_Space': { layout: 'Model', handle: 'A1' },
      'POINT *Model_Space': { layout: 'Model' },
      'CIRCLE *Paper_Space': { layout: 'Sheet A', handle: 'A2' },
      'INSERT *Model_Space': { layout: 'Model', handle: 'A3' },
    });
    expect(a.completeness).toEqual({
      complete: true,
      layouts: { found: 3, emitted: 3, empty: 1, failed: 0, skipped: 0, gaps: [] },
      entities: { found: 5, emitted: 5, empty: 0, failed: 0, skipped: 0, gaps: [] },
    });
  });

  it('inside an e-mail, every provenance starts from the attachment', async () => {
    const within = { message: 1, attachment: [2], file: 'plan.dxf' };
    const a = artifactOf(await parseCad(file, within));
    const circle = a.content.entities.find((e: any) => e.type === 'CIRCLE');
    expect(circle.provenance).toEqual({ ...within, layout: 'Sheet A', handle: 'A2' });
  });
});
