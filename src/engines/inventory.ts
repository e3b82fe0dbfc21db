// The parsing engines this node has, found once at start with file checks and package
// versions (no engine is loaded): PDFium, Tesseract with its models, LibreOffice, GDAL,
// LibreDWG and the Parquet readers. LibreOffice's version is read in the background (see
// libreoffice-version.ts) and fills in when it answers. Uploads that need a missing engine
// are refused (requirements.ts); /health lists what is there and what is missing.
import fs from 'node:fs';
import path from 'node:path';
import { pdfiumBinary } from '../formats/pdf/pdfium-loader.js';
import { gdalAssetDir } from '../formats/gis/engine.js';
import { libredwgWasmDir } from '../formats/cad/libredwg.js';
import { sofficePath, tesseractModels } from '../formats/kit/engine-locations.js';
import { packageDir, packageVersion } from './packages.js';
import { probeLibreOfficeVersion } from './libreoffice-version.js';
import { ENGINE_USES } from './uses.js';
import type { EngineName } from '../formats/kit/family.js';
import type { EngineStatusT, EnginesT } from './schema.js';
import { DEFAULT_PARSER_SETTINGS, type EngineLocations, type OfficeRender, type ParserSettings } from '../formats/settings.js';

export interface EngineStatus extends EngineStatusT {
  name: EngineName;
  /** The binary, model folder or WASM file found (for the node's log; not published). */
  location: string | null;
}

export interface EngineInventory {
  engines: EngineStatus[];
  /** Resolves once LibreOffice's version has been read (at once when it is not installed). */
  versionsRead: Promise<void>;
  /** How Office pages are counted here: whether a DOCX needs LibreOffice (needs.ts). */
  officeRender: OfficeRender;
}

const pkg = (name: string) => ({ name, version: packageVersion(name) });
const label = (p: { name: string; version: string | null }) => (p.version ? `${p.name} ${p.version}` : null);

function status(name: EngineName, s: Omit<EngineStatus, 'name' | 'usedFor'>): EngineStatus {
  return { name, ...s, usedFor: ENGINE_USES[name] };
}

function pdfium(optimizedWanted: boolean): EngineStatus {
  const p = pkg('@embedpdf/pdfium');
  try {
    const binary = pdfiumBinary(optimizedWanted);
    const present = fs.existsSync(binary.path);
    return status('PDFium', {
      available: present,
      version: label(p),
      packages: [p],
      build: binary.optimized ? 'optimised by the build (dist/wasm/pdfium.wasm)' : `package binary (${binary.reason})`,
      location: binary.path,
      ...(present ? {} : { reason: 'pdfium.wasm is missing (reinstall @embedpdf/pdfium)' }),
    });
  } catch {
    return status('PDFium', { available: false, version: label(p), packages: [p], location: null, reason: 'the @embedpdf/pdfium package is not installed' });
  }
}

function tesseract(locations: EngineLocations): EngineStatus {
  const p = pkg('tesseract-wasm');
  const dir = packageDir('tesseract-wasm');
  // The loader picks the SIMD build or the fallback at run time; the package ships both.
  const wasmPresent = !!dir && ['tesseract-core.wasm', 'tesseract-core-fallback.wasm'].every((f) => fs.existsSync(path.join(dir, 'dist', f)));
  const models = tesseractModels(locations);
  const hasEnglish = models.languages.includes('eng');
  const where = locations.tessdataDir ? 'in DOCPARSE_TESSDATA_DIR' : 'in TESSDATA_PREFIX or the Debian folders (package tesseract-ocr-eng)';
  const reason = !wasmPresent
    ? "tesseract-wasm's .wasm files are missing (reinstall the package)"
    : !hasEnglish
      ? `the English model eng.traineddata was not found ${where}`
      : undefined;
  return status('Tesseract', {
    available: wasmPresent && hasEnglish,
    version: label(p),
    packages: [p],
    languages: models.languages,
    location: models.dir,
    ...(reason ? { reason } : {}),
  });
}

function libreOffice(locations: EngineLocations): EngineStatus {
  const soffice = sofficePath(locations);
  return status('LibreOffice', {
    available: soffice !== null,
    version: null,
    packages: [],
    location: soffice,
    ...(soffice
      ? {}
      : { reason: locations.soffice ? 'DOCPARSE_SOFFICE names no executable file' : 'soffice was not found (Debian packages libreoffice-*-nogui)' }),
  });
}

function gdal(): EngineStatus {
  const p = pkg('gdal3.js');
  try {
    const dir = gdalAssetDir(); // throws when the .wasm or .data file is missing
    return status('GDAL', { available: true, version: label(p), packages: [p], location: dir });
  } catch {
    return status('GDAL', {
      available: false,
      version: label(p),
      packages: [p],
      location: null,
      reason: p.version ? "gdal3.js's .wasm or .data file is missing (reinstall the package)" : 'the gdal3.js package is not installed',
    });
  }
}

function libreDwg(): EngineStatus {
  const p = pkg('@mlightcad/libredwg-web');
  let dir: string | null = null;
  try {
    dir = libredwgWasmDir();
  } catch {
    /* not installed */
  }
  const present = !!dir && ['libredwg-web.wasm', 'libredwg-web.js'].every((f) => fs.existsSync(path.join(dir!, f)));
  return status('LibreDWG', {
    available: present,
    version: label(p),
    packages: [p],
    location: present ? dir : null,
    ...(present ? {} : { reason: '@mlightcad/libredwg-web or its .wasm file is missing (reinstall the package)' }),
  });
}

function parquetReaders(): EngineStatus {
  const packages = [pkg('hyparquet'), pkg('hyparquet-compressors')];
  const missing = packages.filter((p) => !p.version).map((p) => p.name);
  return status('hyparquet', {
    available: missing.length === 0,
    version: missing.length ? null : packages.map(label).join(' + '),
    packages,
    location: packageDir('hyparquet'),
    ...(missing.length ? { reason: `${missing.join(' and ')} not installed` } : {}),
  });
}

/** What this machine has now (file checks and package versions; LibreOffice's version not yet read). */
export function detectEngines(settings: ParserSettings): EngineStatus[] {
  return [pdfium(settings.pdf.optimizedPdfium), tesseract(settings.engines), libreOffice(settings.engines), gdal(), libreDwg(), parquetReaders()];
}

let current: EngineInventory | null = null;

/**
 * Takes this node's inventory (a node calls it once, at start) and starts reading
 * LibreOffice's version in the background. Nodes started in one process (tests) share it:
 * the last start's view is the one uploads are checked against.
 */
export function initEngineInventory(settings: ParserSettings): EngineInventory {
  const engines = detectEngines(settings);
  const lo = engines.find((e) => e.name === 'LibreOffice')!;
  const versionsRead = lo.location
    ? probeLibreOfficeVersion(lo.location).then((v) => {
        lo.version = v;
      })
    : Promise.resolve();
  current = { engines, versionsRead, officeRender: settings.office.render };
  return current;
}

/** This node's inventory (a node takes it at start; without one, the default settings' view). */
export function engineInventory(): EngineInventory {
  return current ?? initEngineInventory(DEFAULT_PARSER_SETTINGS);
}

export function findEngine(inventory: EngineInventory, name: EngineName): EngineStatus | undefined {
  return inventory.engines.find((e) => e.name === name);
}

/** The published view: available and missing engines, without file-system locations. */
export function engineReport(inventory: EngineInventory): EnginesT {
  const view = ({ location: _location, ...rest }: EngineStatus): EngineStatusT => rest;
  return {
    available: inventory.engines.filter((e) => e.available).map(view),
    missing: inventory.engines.filter((e) => !e.available).map(view),
  };
}
