// The engine inventory (found at start with file checks and package versions) and the upload
// refusal it drives: requireEngines throws 503 engine_unavailable for a document that needs
// an engine the node lacks, and lets everything else through.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectEngines, engineReport, initEngineInventory, type EngineInventory } from '../../src/engines/inventory.js';
import { requireEngines } from '../../src/engines/requirements.js';
import { enginesNeeded } from '../../src/formats/registry.js';
import { parseSofficeVersion, probeLibreOfficeVersion } from '../../src/engines/libreoffice-version.js';
import { sofficePath, tesseractModelPath, tesseractModels } from '../../src/formats/kit/engine-locations.js';
import { ProblemError } from '../../src/http/problem.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { JobOptions } from '../../src/formats/kit/options.js';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const versionOf = (name: string) => (JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

let empty: string;
beforeAll(() => {
  empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-no-tessdata-'));
});
afterAll(() => {
  fs.rmSync(empty, { recursive: true, force: true });
});

/** This machine's parser settings as a node's config reads them from `env` (PATH and TESSDATA_PREFIX as the test runner has them). */
const settingsWith = (env: Record<string, string> = {}) =>
  loadConfig({ ...Object.fromEntries(['PATH', 'TESSDATA_PREFIX'].filter((n) => process.env[n]).map((n) => [n, process.env[n]!])), ...env }).parsers;

/** An inventory of this machine as a node configured with `env` takes it (versions not awaited). */
const inventoryWith = (env: Record<string, string>): EngineInventory => {
  const settings = settingsWith(env);
  return { engines: detectEngines(settings), versionsRead: Promise.resolve(), officeRender: settings.office.render };
};

/** The problem requireEngines throws, or null when the document may be taken. */
function refusal(format: string, options: JobOptions, inventory: EngineInventory): ProblemError | null {
  try {
    requireEngines(format, options, inventory);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ProblemError);
    return err as ProblemError;
  }
}

describe('the inventory of this machine', () => {
  it('lists every engine as available, with the installed versions, Tesseract with its languages', async () => {
    const inv = initEngineInventory(settingsWith());
    await inv.versionsRead;
    const byName = Object.fromEntries(inv.engines.map((e) => [e.name, e]));
    expect(Object.keys(byName)).toEqual(['PDFium', 'Tesseract', 'LibreOffice', 'GDAL', 'LibreDWG', 'hyparquet']);
    for (const e of inv.engines) expect(e, e.name).toMatchObject({ available: true });
    expect(byName.PDFium.version).toBe(`@embedpdf/pdfium ${versionOf('@embedpdf/pdfium')}`);
    expect(byName.PDFium.build).toMatch(/^optimised by the build|^package binary \(/);
    expect(byName.Tesseract.version).toBe(`tesseract-wasm ${versionOf('tesseract-wasm')}`);
    expect(byName.Tesseract.languages).toContain('eng');
    expect(byName.Tesseract.location).toBe(path.dirname(tesseractModelPath(settingsWith().engines, 'eng')!));
    expect(byName.GDAL.version).toBe(`gdal3.js ${versionOf('gdal3.js')}`);
    expect(byName.LibreDWG.version).toBe(`@mlightcad/libredwg-web ${versionOf('@mlightcad/libredwg-web')}`);
    expect(byName.hyparquet.version).toBe(`hyparquet ${versionOf('hyparquet')} + hyparquet-compressors ${versionOf('hyparquet-compressors')}`);
    // LibreOffice's version is what soffice itself says (read once, in the background).
    const said = execFileSync('soffice', ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: os.tmpdir(), SAL_USE_VCLPLUGIN: 'svp' } });
    expect(byName.LibreOffice.version).toBe(parseSofficeVersion(said));
    expect(byName.LibreOffice.version).toMatch(/^LibreOffice \d+\.\d+/);
    expect(byName.LibreOffice.location).toBe(sofficePath(settingsWith().engines));
  });

  it('is cheap: file checks and package versions, no engine loaded', () => {
    const started = performance.now();
    const settings = settingsWith();
    for (let i = 0; i < 5; i++) detectEngines(settings);
    expect((performance.now() - started) / 5).toBeLessThan(200);
  });

  it('publishes no file-system paths', () => {
    const report = engineReport(initEngineInventory(settingsWith()));
    expect(report.missing).toEqual([]);
    expect(JSON.stringify(report)).not.toMatch(/"location"|\/usr\/|node_modules/);
  });
});

describe('engines this node lacks', () => {
  it('DOCPARSE_SOFFICE naming a path with no binary: LibreOffice missing, no fallback to the installed one', () => {
    const inv = inventoryWith({ DOCPARSE_SOFFICE: '/nonexistent' });
    const lo = inv.engines.find((e) => e.name === 'LibreOffice')!;
    expect(lo).toMatchObject({ available: false, version: null, location: null, reason: 'DOCPARSE_SOFFICE names no executable file' });
    expect(engineReport(inv).missing.map((e) => e.name)).toEqual(['LibreOffice']);
  });

  it('DOCPARSE_TESSDATA_DIR naming a folder without eng.traineddata: Tesseract missing, no languages', () => {
    const inv = inventoryWith({ DOCPARSE_TESSDATA_DIR: empty });
    const t = inv.engines.find((e) => e.name === 'Tesseract')!;
    expect(t).toMatchObject({ available: false, languages: [], reason: 'the English model eng.traineddata was not found in DOCPARSE_TESSDATA_DIR' });
    expect(tesseractModels(settingsWith({ DOCPARSE_TESSDATA_DIR: empty }).engines)).toEqual({ dir: empty, languages: [] });
  });

  it('a models folder with other languages but not English: listed, and still missing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-tessdata-deu-'));
    try {
      fs.writeFileSync(path.join(dir, 'deu.traineddata'), '');
      const t = inventoryWith({ DOCPARSE_TESSDATA_DIR: dir }).engines.find((e) => e.name === 'Tesseract')!;
      expect(t).toMatchObject({ available: false, languages: ['deu'] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the paths must be absolute (a relative one is a configuration error at boot)', () => {
    expect(() => loadConfig({ DOCPARSE_SOFFICE: 'soffice' })).toThrow(ConfigError);
    expect(() => loadConfig({ DOCPARSE_TESSDATA_DIR: 'tessdata' })).toThrow(/DOCPARSE_TESSDATA_DIR="tessdata" must be an absolute path/);
    expect(() => loadConfig({ DOCPARSE_SOFFICE: '/nonexistent', DOCPARSE_TESSDATA_DIR: empty })).not.toThrow();
  });
});

describe('requireEngines: refused at upload when the node lacks the engine', () => {
  let none: EngineInventory;
  let all: EngineInventory;
  beforeAll(() => {
    none = inventoryWith({ DOCPARSE_SOFFICE: '/nonexistent', DOCPARSE_TESSDATA_DIR: empty });
    all = inventoryWith({});
  });

  it('a DOC needs LibreOffice: 503 engine_unavailable naming it and the format, no Retry-After', () => {
    const p = refusal('doc', {}, none)!;
    expect(p).toMatchObject({ status: 503, code: 'engine_unavailable', extras: { engine: 'LibreOffice', format: 'doc' } });
    expect(p.detail).toBe('LibreOffice is needed to read DOC documents and is not installed on this node. Nothing was stored or charged.');
    expect(p.headers).toEqual({});
    expect(refusal('doc', {}, all)).toBeNull();
  });

  it('every format LibreOffice converts is refused without it; XLSX and PPTX are read directly', () => {
    for (const f of ['doc', 'xls', 'ppt', 'rtf', 'odt', 'ods', 'odp']) expect(refusal(f, {}, none)?.extras, f).toEqual({ engine: 'LibreOffice', format: f });
    for (const f of ['xlsx', 'pptx', 'csv', 'eml', 'msg', 'mbox', 'pst', 'sql', 'dxf']) expect(refusal(f, {}, none), f).toBeNull();
  });

  it('a DOCX needs LibreOffice for its page count, unless DOCPARSE_OFFICE_RENDER is off or auto', () => {
    expect(refusal('docx', {}, none)?.detail).toBe(
      'LibreOffice is needed to count the pages of DOCX documents and is not installed on this node. Nothing was stored or charged.',
    );
    const render = (mode: string) => settingsWith({ DOCPARSE_OFFICE_RENDER: mode }).office.render;
    expect(enginesNeeded('docx', {}, render('always'))).toEqual([{ engine: 'LibreOffice', why: 'to count the pages of DOCX documents' }]);
    for (const mode of ['off', '0', 'false', 'auto', 'AUTO']) expect(enginesNeeded('docx', {}, render(mode)), mode).toEqual([]);
    // The node's inventory carries its mode: the same node without LibreOffice takes a DOCX in "auto".
    expect(refusal('docx', {}, inventoryWith({ DOCPARSE_SOFFICE: '/nonexistent', DOCPARSE_OFFICE_RENDER: 'auto' }))).toBeNull();
  });

  it('pdfMode=Ocr needs Tesseract with the English model; the other modes do not', () => {
    const p = refusal('pdf', { pdfMode: 'Ocr' }, none)!;
    expect(p).toMatchObject({ status: 503, code: 'engine_unavailable', extras: { engine: 'Tesseract', format: 'pdf', pdfMode: 'Ocr' } });
    expect(p.detail).toBe('Tesseract is needed for pdfMode=Ocr and is not installed on this node. Nothing was stored or charged.');
    for (const mode of ['SingleColumn', 'MultiColumn', 'Advanced'] as const) expect(refusal('pdf', { pdfMode: mode }, none), mode).toBeNull();
    expect(refusal('pdf', { pdfMode: 'Ocr' }, all)).toBeNull();
  });

  it('GIS needs GDAL, DWG LibreDWG, Parquet its readers, every PDF PDFium', () => {
    const without = (name: string): EngineInventory => ({ ...all, engines: all.engines.map((e) => (e.name === name ? { ...e, available: false } : e)) });
    for (const f of ['shapefile', 'mapinfo', 'filegdb', 'geopackage', 'geojson', 'kml', 'kmz', 'gml', 'gpx', 'flatgeobuf']) {
      expect(refusal(f, {}, without('GDAL'))?.extras, f).toEqual({ engine: 'GDAL', format: f });
    }
    expect(refusal('dwg', {}, without('LibreDWG'))?.extras).toEqual({ engine: 'LibreDWG', format: 'dwg' });
    expect(refusal('dxf', {}, without('LibreDWG'))).toBeNull();
    expect(refusal('parquet', { parquetMode: 'MetadataOnly' }, without('hyparquet'))?.extras).toEqual({ engine: 'hyparquet', format: 'parquet' });
    expect(refusal('pdf', { pdfMode: 'SingleColumn' }, without('PDFium'))?.extras).toEqual({ engine: 'PDFium', format: 'pdf', pdfMode: 'SingleColumn' });
    for (const f of ['geojson', 'dwg', 'parquet', 'pdf']) expect(refusal(f, { pdfMode: 'Ocr' }, all), f).toBeNull();
  });
});

describe("LibreOffice's version", () => {
  it('is read from the first line soffice prints', () => {
    expect(parseSofficeVersion('LibreOffice 7.4.7.2 40(Build:2)\n\n')).toBe('LibreOffice 7.4.7.2');
    expect(parseSofficeVersion('Collabora Office 22.05.14.3 abc\n')).toBe('Collabora Office 22.05.14.3');
    expect(parseSofficeVersion('')).toBeNull();
  });

  it('a soffice that does not answer is killed, with its process group, and gives no version', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-hung-soffice-'));
    const marker = `docparse-hung-version-${process.pid}-${Date.now()}`;
    const stub = path.join(dir, 'soffice');
    fs.writeFileSync(stub, `#!/bin/bash\n(exec -a ${marker}-helper sleep 600) &\nexec -a ${marker} sleep 600\n`, { mode: 0o755 });
    const count = () => {
      try {
        return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
      } catch {
        return 0;
      }
    };
    try {
      const started = Date.now();
      expect(await probeLibreOfficeVersion(stub, 300)).toBeNull();
      expect(Date.now() - started).toBeLessThan(5000);
      for (let i = 0; i < 50 && count() > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(count()).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
