// CAD family on the real corpus (its cad folder): DWG layer/block-record/entity counts
// and entity types equal the MANIFEST's libredwg-web ground truth; DXF files are checked
// against the same drawing saved as DWG and against GDAL where it is comparable; malformed
// files fail with a clear reason. Every artifact's content is validated against CadContent.
import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { parseDwg, parseDxf } from '../../../src/formats/cad/index.js';
import { CadContent } from '../../../src/formats/cad/schema.js';
import { corpusPath, parseFileWith, readManifest, type ParseResult } from '../../helpers/parse.js';

const manifest = await readManifest('cad');
const dwgTruth = manifest
  .filter((r) => r.file.endsWith('.dwg') && !r.file.startsWith('bad_'))
  .map((r) => {
    const m =
      /libredwg-web 0\.7\.14 \(WASM, observed\): ver=(\S+) errBits=(\d+) layers=(\d+) blockRecords=(\d+) modelEntities=(\d+) unknown=(\d+) texts=(\d+) types=(\S+)/.exec(
        r.ground_truth,
      );
    if (!m) throw new Error(`no libredwg ground truth for ${r.file}`);
    const header = /header=(AC\d{4})/.exec(r.ground_truth)?.[1] ?? null;
    const types = Object.fromEntries(
      m[8].split(',').map((kv) => {
        const i = kv.lastIndexOf(':');
        return [kv.slice(0, i), Number(kv.slice(i + 1))];
      }),
    );
    return {
      file: r.file,
      header,
      errBits: Number(m[2]),
      layers: Number(m[3]),
      blocks: Number(m[4]),
      entities: Number(m[5]),
      unknown: Number(m[6]),
      texts: Number(m[7]),
      types,
    };
  });

function content(r: ParseResult): any {
  if (!r.ok) throw new Error(`parse failed: ${r.code} ${r.message}`);
  return r.artifact.content;
}

function expectValid(r: ParseResult): void {
  const c = content(r);
  const errors = [...Value.Errors(CadContent, c)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  expect(errors).toEqual([]);
}

describe('DWG (LibreDWG, fresh WASM instance per drawing)', () => {
  it('the corpus has DWG ground truth to compare against', () => {
    expect(dwgTruth.length).toBeGreaterThanOrEqual(15);
  });

  for (const t of dwgTruth) {
    it(`${t.file}: layers, block records, entities and types equal the MANIFEST`, async () => {
      const r = await parseFileWith(parseDwg, corpusPath('cad', t.file), 'dwg');
      const c = content(r);
      expectValid(r);
      if (!r.ok) return;
      expect(r.artifact.document_format).toBe('dwg');
      expect(r.artifact.documentUnits).toBe(1);
      expect(c.layers.length).toBe(t.layers);
      expect(c.blocks.length).toBe(t.blocks);
      expect(c.summary.entities).toBe(t.entities);
      expect(c.entityCounts).toEqual(t.types);
      if (t.header) expect(c.fileVersion.code).toBe(t.header);
      // texts in model/paper space (TEXT + MTEXT) as the MANIFEST counts them
      const spaceTexts = c.texts.filter((x: any) => (x.kind === 'TEXT' || x.kind === 'MTEXT') && /^\*(model|paper)_space\d*$/i.test(x.block));
      expect(spaceTexts.length).toBe(t.texts);
      // every block's per-type counts add up, and model-space entities are all listed
      for (const b of c.blocks) expect(Object.values(b.entityCounts as Record<string, number>).reduce((a, n) => a + n, 0)).toBe(b.entityCount);
      expect(c.entities.filter((e: any) => /^\*(model|paper)_space\d*$/i.test(e.block)).length).toBe(t.entities);
      if (t.errBits) expect(r.artifact.warnings.join(' ')).toMatch(new RegExp(`error ${t.errBits}`));
      if (t.unknown) expect(r.artifact.warnings.join(' ')).toMatch(new RegExp(`${t.unknown} entities`));
    });
  }

  it('example_2000: texts, attributes, dimensions, blocks, layouts and geometry', async () => {
    const c = content(await parseFileWith(parseDwg, corpusPath('cad', 'dwg_example_2000.dwg'), 'dwg'));
    expect(c.units.name).toBe('Millimeters');
    expect(c.extents.min[0]).toBeLessThan(c.extents.max[0]);
    const text = c.texts.find((x: any) => x.kind === 'TEXT' && x.text === 'teksto simpla');
    expect(text).toMatchObject({ layer: 'Tavolo 3', block: '*Model_Space', height: 100 });
    expect(text.position[0]).toBeCloseTo(5881.2526, 3);
    const attrib = c.texts.find((x: any) => x.kind === 'ATTRIB' && x.tag === 'ETIKEDO');
    expect(attrib.text).toBe('valoro de la teksto en bloko');
    expect(attrib.insertHandle).toBeTruthy();
    expect(c.dimensions.filter((d: any) => /^\*model_space$/i.test(d.block)).length).toBe(9);
    expect(c.dimensions.find((d: any) => d.handle === '37E').measurement).toBeCloseTo(1504.6795, 3);
    const bloko = c.blocks.find((b: any) => b.name === 'bloko');
    expect(bloko.references).toBeGreaterThan(0);
    expect(c.layouts.map((l: any) => l.name).sort()).toEqual(['Layout1', 'Layout2', 'Model']);
    const line = c.entities.find((e: any) => e.handle === '8B');
    expect(line.geometry).toEqual({ kind: 'line', from: [370.85861165343067, 730.6303035220437], to: [450.03975642026035, 619.2192730768991] });
    const hatch = c.entities.find((e: any) => e.type === 'HATCH' && e.block === '*Model_Space');
    expect(hatch.geometry.kind).toBe('hatch');
    expect(hatch.geometry.loops[0].points.length).toBeGreaterThanOrEqual(6);
    // entities LibreDWG reads but its converter drops are still counted and named
    expect(c.fileEntityCounts).toMatchObject({ REGION: 2, LIGHT: 1, ARC_DIMENSION: 1, POLYLINE_PFACE: 1, HATCH: 1 });
    const r = await parseFileWith(parseDwg, corpusPath('cad', 'dwg_example_2000.dwg'), 'dwg');
    expect(r.ok && r.artifact.warnings.join(' ')).toMatch(/REGION ×2, ARC_DIMENSION ×1, POLYLINE_PFACE ×1, LIGHT ×1/);
    const layer0 = c.layers.find((l: any) => l.name === '0');
    expect(layer0).toMatchObject({ locked: true, frozen: false, on: true, colorIndex: 7 });
  });

  it('example_2000 DWG and DXF agree on dimension measurements and texts', async () => {
    const dwg = content(await parseFileWith(parseDwg, corpusPath('cad', 'dwg_example_2000.dwg'), 'dwg'));
    const dxf = content(await parseFileWith(parseDxf, corpusPath('cad', 'dxf_example_2000.dxf'), 'dxf'));
    const dims = (c: any) =>
      c.dimensions
        .filter((d: any) => /^\*model_space$/i.test(d.block))
        .map((d: any) => `${d.dimensionType}:${d.measurement.toFixed(4)}`)
        .sort();
    expect(dims(dwg)).toEqual(dims(dxf));
    expect(dims(dwg)).toContain('aligned:1504.6795');
    const texts = (c: any, kind: string) =>
      c.texts
        .filter((t: any) => t.kind === kind && /^\*model_space$/i.test(t.block))
        .map((t: any) => t.plainText)
        .sort();
    for (const kind of ['TEXT', 'MTEXT', 'ATTRIB', 'MULTILEADER']) expect([kind, texts(dwg, kind)]).toEqual([kind, texts(dxf, kind)]);
  });

  it('attribs_fr: accented layer names and attribute values survive', async () => {
    const c = content(await parseFileWith(parseDwg, corpusPath('cad', 'dwg_attribs_fr.dwg'), 'dwg'));
    expect(c.layers.some((l: any) => /[éèàç]/i.test(l.name))).toBe(true);
    expect(c.texts.filter((x: any) => x.kind === 'ATTRIB').length).toBe(99);
  });

  it('reads several drawings one after another in one thread (fresh instance each time)', async () => {
    for (const f of ['dwg_sample_2018.dwg', 'dwg_sample_2000.dwg', 'dwg_sample_2018.dwg']) {
      const c = content(await parseFileWith(parseDwg, corpusPath('cad', f), 'dwg'));
      expect(c.summary.entities).toBe(6);
    }
  });

  it.each([
    ['bad_dwg_signature_only.dwg', /not a readable DWG/],
    ['bad_dwg_truncated_2018.dwg', /error 256: section not found/],
  ])('%s fails with a clear reason', async (file, reason) => {
    const r = await parseFileWith(parseDwg, corpusPath('cad', file), 'dwg');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('extraction_failed');
      expect(r.message).toMatch(reason);
    }
  });

  it('a DXF handed to the DWG parser fails cleanly', async () => {
    const r = await parseFileWith(parseDwg, corpusPath('cad', 'dxf_hatch.dxf'), 'dwg');
    expect(r.ok).toBe(false);
  });
});

describe('DXF (ASCII and binary)', () => {
  it('dxf_example_2000 and _2018 hold the DWG example drawing: same layers, blocks and per-type counts', async () => {
    const dwg = dwgTruth.find((t) => t.file === 'dwg_example_2000.dwg')!;
    for (const f of ['dxf_example_2000.dxf', 'dxf_example_2018.dxf']) {
      const r = await parseFileWith(parseDxf, corpusPath('cad', f), 'dxf');
      expectValid(r);
      const c = content(r);
      expect(c.layers.length).toBe(dwg.layers);
      expect(c.blocks.length).toBe(dwg.blocks);
      // LibreDWG's converter skips REGION, LIGHT, ARC_DIMENSION and polyface meshes; every
      // type it does convert has the same count in the DXF.
      for (const [type, n] of Object.entries(dwg.types)) expect([f, type, c.entityCounts[type]]).toEqual([f, type, n]);
      const extra = Object.entries(c.entityCounts as Record<string, number>).filter(([t]) => !(t in dwg.types));
      expect(extra.reduce((a, [, n]) => a + n, 0)).toBe(c.summary.entities - dwg.entities);
      expect(c.texts.some((x: any) => x.text === 'teksto simpla')).toBe(true);
      expect(c.dimensions.filter((d: any) => /^\*model_space$/i.test(d.block)).length).toBe(9);
    }
  });

  it('dxf_example_r12 (no handles, no subclass markers): layers and texts', async () => {
    const r = await parseFileWith(parseDxf, corpusPath('cad', 'dxf_example_r12.dxf'), 'dxf');
    expectValid(r);
    const c = content(r);
    expect(c.fileVersion.code).toBe('AC1009');
    expect(c.layers.length).toBe(5);
    expect(c.texts.some((x: any) => x.text === 'teksto simpla')).toBe(true);
    expect(c.entityCounts.DIMENSION).toBe(9);
  });

  it('binary DXF is read (GDAL cannot open it)', async () => {
    const r = await parseFileWith(parseDxf, corpusPath('cad', 'dxf_bin_dxf_r2000.dxf'), 'dxf');
    expectValid(r);
    const c = content(r);
    expect(c.dxf.binary).toBe(true);
    expect(c.fileVersion.code).toBe('AC1015');
    expect(c.codepage).toBe('ansi_1252');
    expect(c.extents).toEqual({ min: [-100, -100, -100], max: [100, 100, 100] });
    expect(c.entityCounts).toEqual({ TEXT: 1 });
  });

  it('HATCH entities are kept with their boundaries (GDAL: 3 features)', async () => {
    const r = await parseFileWith(parseDxf, corpusPath('cad', 'dxf_hatch.dxf'), 'dxf');
    expectValid(r);
    const c = content(r);
    expect(c.entityCounts).toEqual({ HATCH: 3 });
    for (const e of c.entities) expect(e.geometry.loops.length).toBeGreaterThan(0);
  });

  it('recursive INSERT pair does not loop (GDAL: 1 feature)', async () => {
    const r = await parseFileWith(parseDxf, corpusPath('cad', 'dxf_insert-recursive-pair.dxf'), 'dxf');
    expectValid(r);
    expect(content(r).entityCounts).toEqual({ INSERT: 1 });
  });

  it('UTF-8 layer names and MTEXT formatting codes', async () => {
    const utf = content(await parseFileWith(parseDxf, corpusPath('cad', 'dxf_utf-8.dxf'), 'dxf'));
    expect(utf.layers.some((l: any) => /[^\x00-\x7f]/.test(l.name))).toBe(true);
    const lm = content(await parseFileWith(parseDxf, corpusPath('cad', 'dxf_leader-mleader.dxf'), 'dxf'));
    expect(lm.entityCounts.LEADER).toBe(7);
    expect(lm.entityCounts.MULTILEADER).toBe(9);
    for (const t of lm.texts) expect(t.plainText).not.toMatch(/\\[PpfFHCc]/);
  });

  it.each(['dxf_3d.dxf', 'dxf_assorted.dxf', 'dxf_text-fancy.dxf'])('%s parses and validates', async (f) => {
    const r = await parseFileWith(parseDxf, corpusPath('cad', f), 'dxf');
    expectValid(r);
    expect(content(r).summary.entities).toBeGreaterThan(0);
  });

  it('the fuzzer DXF fails with a clear reason, without hanging', async () => {
    const r = await parseFileWith(parseDxf, corpusPath('cad', 'bad_fuzzer_5400376672124928.dxf'), 'dxf');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('extraction_failed');
      expect(r.message).toMatch(/malformed DXF: line \d+/);
    }
  });

  it('a DWG handed to the DXF parser fails cleanly', async () => {
    const r = await parseFileWith(parseDxf, corpusPath('cad', 'dwg_sample_2000.dwg'), 'dxf');
    expect(r.ok).toBe(false);
  });
});
