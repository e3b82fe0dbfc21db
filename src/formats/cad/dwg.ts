// DWG → drawing model through LibreDWG (a fresh WASM instance per drawing, see libredwg.ts).
import { readFile } from 'node:fs/promises';
import { ExtractionError } from '../kit/types.js';
import { newLibreDwgInstance } from './libredwg.js';
import {
  checkCadSize,
  countInto,
  isModelSpace,
  isPaperSpace,
  pt,
  unitsOf,
  validExtent,
  type CadBlock,
  type CadDocument,
  type CadLayer,
  type CadLayout,
} from './model.js';
import { dimensionOf, textsOf, toCadEntity } from './normalize.js';

/** Dwg_Error bits (libredwg's dwg.h, as libredwg-web.d.ts lists them). Codes ≥ 128 (DWG_ERR_CRITICAL) mean the read failed. */
const DWG_ERRORS: [number, string][] = [
  [1, 'wrong checksum'],
  [2, 'a feature not yet supported'],
  [4, 'unhandled class'],
  [8, 'invalid type'],
  [16, 'invalid handle'],
  [32, 'invalid extended entity data'],
  [64, 'value out of bounds'],
  [128, 'class not found'],
  [256, 'section not found'],
  [512, 'page not found'],
  [1024, 'internal error'],
  [2048, 'invalid DWG'],
  [4096, 'I/O error'],
  [8192, 'out of memory'],
];
const DWG_ERR_CRITICAL = 128;

export function describeDwgError(code: number): string {
  return (
    DWG_ERRORS.filter(([bit]) => code & bit)
      .map(([, name]) => name)
      .join(', ') || `code ${code}`
  );
}

const HEADER_KEEP = [
  'INSBASE',
  'EXTMIN',
  'EXTMAX',
  'LIMMIN',
  'LIMMAX',
  'INSUNITS',
  'MEASUREMENT',
  'LUNITS',
  'LUPREC',
  'AUNITS',
  'AUPREC',
  'ANGBASE',
  'ANGDIR',
  'DIMSCALE',
  'LTSCALE',
  'TEXTSIZE',
  'TEXTSTYLE',
  'CLAYER',
  'PDMODE',
  'TDCREATE',
  'TDUPDATE',
  'FINGERPRINTGUID',
  'VERSIONGUID',
  'PROJECTNAME',
  'HANDSEED',
];

function headerSubset(h: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of HEADER_KEEP) {
    const v = h[k];
    if (v === undefined || v === null || v === '') continue;
    if (v instanceof Date) out[k] = Number.isNaN(v.getTime()) ? null : v.toISOString();
    else if (typeof v === 'bigint') out[k] = v.toString();
    else if (typeof v === 'object') out[k] = pt(v) ?? v;
    else out[k] = v;
  }
  return out;
}

const CODEPAGES: Record<number, string> = {
  0: 'utf-8',
  1: 'us-ascii',
  2: 'iso-8859-1',
  3: 'iso-8859-2',
  4: 'iso-8859-3',
  5: 'iso-8859-4',
  6: 'iso-8859-5',
  7: 'iso-8859-6',
  8: 'iso-8859-7',
  9: 'iso-8859-8',
  10: 'iso-8859-9',
  11: 'cp437',
  12: 'cp850',
  13: 'cp852',
  14: 'cp855',
  15: 'cp857',
  16: 'cp860',
  17: 'cp861',
  18: 'cp863',
  19: 'cp864',
  20: 'cp865',
  21: 'cp869',
  22: 'cp932',
  23: 'macintosh',
  24: 'big5',
  25: 'cp949',
  26: 'johab',
  27: 'cp866',
  28: 'ansi_1250',
  29: 'ansi_1251',
  30: 'ansi_1252',
  31: 'gb2312',
  32: 'ansi_1253',
  33: 'ansi_1254',
  34: 'ansi_1255',
  35: 'ansi_1256',
  36: 'ansi_1257',
  37: 'ansi_874',
  38: 'ansi_932',
  39: 'ansi_936',
  40: 'ansi_949',
  41: 'ansi_950',
  42: 'ansi_1361',
  43: 'utf-16',
  44: 'ansi_1258',
};

export async function readDwg(filePath: string, maxBytes: number): Promise<CadDocument> {
  await checkCadSize(filePath, maxBytes);
  const bytes = await readFile(filePath);
  // The signature is quoted only once it is known to be one (six printable characters).
  if (!/^AC[12][.0-9]\d{2}/.test(bytes.subarray(0, 6).toString('latin1'))) {
    throw new ExtractionError('not a DWG file: the AutoCAD version signature (AC10xx) is missing');
  }
  if (bytes.length < 0x80) {
    throw new ExtractionError(`not a readable DWG file: only ${bytes.length} bytes after the ${bytes.subarray(0, 6).toString('latin1')} signature`);
  }
  const signature = bytes.subarray(0, 6).toString('latin1');
  const { lib, raw } = await newLibreDwgInstance();
  let data: number | null = null;
  try {
    raw.FS.writeFile('/drawing.dwg', bytes);
    let result: { error: number; data: number };
    try {
      result = raw.dwg_read_file('/drawing.dwg');
    } catch (err) {
      throw new ExtractionError(`LibreDWG could not read this ${signature} drawing: the file is damaged, truncated or not a DWG.`, 'extraction_failed', false, {
        cause: err,
      });
    }
    data = result.data;
    const code = result.error >>> 0;
    if (code >= DWG_ERR_CRITICAL) {
      throw new ExtractionError(
        `LibreDWG could not read this ${signature} drawing (error ${code}: ${describeDwgError(code)}); the file is damaged, truncated or not a DWG`,
      );
    }
    const warnings: string[] = [];
    if (code) warnings.push(`LibreDWG reported recoverable problems (error ${code}: ${describeDwgError(code)}); the drawing was read anyway`);
    let version: { type?: string; hdr?: string; description?: string } = {};
    try {
      version = lib.dwg_get_version_type(data) ?? {};
    } catch {
      /* version stays unknown */
    }
    let codepage: string | null = null;
    try {
      const cp = lib.dwg_get_codepage(data);
      codepage = typeof cp === 'number' ? (CODEPAGES[cp] ?? `codepage ${cp}`) : null;
    } catch {
      /* unknown */
    }
    let conv: { database: any; stats: { unknownEntityCount: number } };
    try {
      conv = lib.convertEx(data);
    } catch (err) {
      throw new ExtractionError(
        `LibreDWG read the ${signature} drawing but could not convert it: some of its objects are damaged or unsupported.`,
        'extraction_failed',
        false,
        { cause: err },
      );
    }
    const doc = fromDatabase(conv.database, signature, version, codepage);
    doc.fileEntityCounts = entityCensus(lib, data);
    const notConverted = notConvertedTypes(doc);
    if (notConverted.length) {
      warnings.push(
        `entities in the file that LibreDWG's converter does not turn into entities (counted in fileEntityCounts only): ${notConverted.map(([name, n]) => `${name} ×${n}`).join(', ')}`,
      );
    }
    doc.skippedEntities = notConverted.map(([type, count]) => ({
      type,
      count,
      reason: `LibreDWG's converter does not turn ${type} entities into entities; they are counted in fileEntityCounts only.`,
    }));
    if (conv.stats.unknownEntityCount) {
      warnings.push(`${conv.stats.unknownEntityCount} entities of classes LibreDWG cannot decode were skipped`);
      // Those are in the census already, among the types not converted (AEC_WALL …), unless the census failed.
      const uncounted = conv.stats.unknownEntityCount - notConverted.reduce((a, [, n]) => a + n, 0);
      if (uncounted > 0) doc.skippedEntities.push({ type: 'unknown class', count: uncounted, reason: 'The entity is of a class LibreDWG cannot decode.' });
    }
    doc.warnings.push(...warnings);
    return doc;
  } finally {
    if (data) {
      try {
        lib.dwg_free(data);
      } catch {
        /* the instance is dropped anyway */
      }
    }
  }
}

function fromDatabase(db: any, signature: string, version: { type?: string; hdr?: string; description?: string }, codepage: string | null): CadDocument {
  const header: Record<string, unknown> = db.header ?? {};
  const layers: CadLayer[] = (db.tables?.LAYER?.entries ?? []).map((l: any) => ({
    name: String(l.name ?? ''),
    colorIndex: typeof l.colorIndex === 'number' ? Math.abs(l.colorIndex) : null,
    trueColor: typeof l.color === 'number' && l.color >= 0 ? '#' + (l.color & 0xffffff).toString(16).padStart(6, '0') : null,
    lineType: l.lineType || null,
    lineWeight: typeof l.lineweight === 'number' ? l.lineweight : null,
    on: !l.off && !(typeof l.colorIndex === 'number' && l.colorIndex < 0),
    frozen: !!l.frozen,
    locked: !!l.locked,
    plot: typeof l.plotFlag === 'number' ? l.plotFlag !== 0 : null,
  }));

  const layoutsByHandle = new Map<string, string>();
  const layouts: CadLayout[] = (db.objects?.LAYOUT ?? []).map((l: any) => {
    layoutsByHandle.set(String(l.handle), String(l.layoutName ?? ''));
    const ext = validExtentSafe(l.minExtent, l.maxExtent);
    return {
      name: String(l.layoutName ?? ''),
      tabOrder: typeof l.tabOrder === 'number' ? l.tabOrder : null,
      block: null as string | null,
      limits: l.minLimit && l.maxLimit ? { min: pt(l.minLimit) ?? [0, 0], max: pt(l.maxLimit) ?? [0, 0] } : null,
      extents: ext,
      _btr: l.paperSpaceTableId ?? null,
    };
  });

  const doc: CadDocument = {
    format: 'dwg',
    engine: 'libredwg-web 0.7.14 (LibreDWG, WASM)',
    fileVersion: { code: version.hdr ?? signature, release: version.description ?? version.type ?? null },
    codepage,
    units: unitsOf(header.INSUNITS, header.MEASUREMENT),
    extents: validExtentSafe(header.EXTMIN, header.EXTMAX),
    headerVariables: headerSubset(header),
    layers,
    blocks: [],
    layouts: [],
    entityCounts: {},
    entityCount: 0,
    texts: [],
    dimensions: [],
    entities: [],
    warnings: [],
  };

  const refs = new Map<string, number>();
  const blocks: CadBlock[] = [];
  const preR2007 = /^AC10(0\d|1[0-8])$/.test(version.hdr ?? signature);
  const btrHandleToName = new Map<string, string>();
  for (const b of db.tables?.BLOCK_RECORD?.entries ?? []) {
    const name = String(b.name ?? '');
    btrHandleToName.set(String(b.handle), name);
    const space = isModelSpace(name) || isPaperSpace(name);
    const counts: Record<string, number> = {};
    let n = 0;
    const add = (e: any, insertHandle: string | null) => {
      n++;
      if (preR2007 && e.type === 'MULTILEADER' && typeof e.textContent === 'string') e.textContent = undoUtf16Misread(e.textContent);
      countInto(counts, String(e.type));
      if (space) {
        doc.entityCount++;
        countInto(doc.entityCounts, String(e.type));
      }
      doc.entities.push(toCadEntity(e, name));
      doc.texts.push(...textsOf(e, name, insertHandle));
      const d = dimensionOf(e, name);
      if (d) doc.dimensions.push(d);
      if (e.type === 'INSERT' && e.name) refs.set(e.name, (refs.get(e.name) ?? 0) + 1);
    };
    for (const e of b.entities ?? []) {
      add(e, null);
      if (e.type === 'INSERT' && Array.isArray(e.attribs)) for (const a of e.attribs) add(a, e.handle ?? null);
    }
    const flags = typeof b.flags === 'number' ? b.flags : 0;
    blocks.push({
      name,
      handle: b.handle ?? null,
      flags,
      anonymous: (flags & 1) === 1 || name.startsWith('*'),
      xref: (flags & 4) === 4,
      basePoint: pt(b.basePoint),
      description: b.description || null,
      layout: b.layout && layoutsByHandle.has(String(b.layout)) ? layoutsByHandle.get(String(b.layout))! : null,
      entityCount: n,
      entityCounts: counts,
      references: 0,
    });
  }
  for (const b of blocks) b.references = refs.get(b.name) ?? 0;
  doc.blocks = blocks;
  doc.layouts = layouts.map((l: any) => {
    const { _btr, ...rest } = l;
    return { ...rest, block: _btr ? (btrHandleToName.get(String(_btr)) ?? null) : null };
  });
  return doc;
}

/**
 * libredwg-web reads MULTILEADER text of pre-2007 drawings (8-bit strings) as UTF-16, so
 * "xx\\Pxx" arrives as CJK-looking pairs. When every UTF-16 unit splits into two ASCII
 * bytes, the string is decoded again as the bytes it was.
 */
export function undoUtf16Misread(s: string): string {
  if (!/[\u0100-\uffff]/.test(s)) return s;
  const bytes = Buffer.from(s, 'utf16le');
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  for (let i = 0; i < end; i++) if (bytes[i] >= 0x80 || bytes[i] === 0) return s;
  return bytes.subarray(0, end).toString('latin1');
}

/** Every entity object LibreDWG decoded, by LibreDWG's object name (all blocks; VERTEX/SEQEND included). */
function entityCensus(lib: any, data: number): Record<string, number> {
  const counts: Record<string, number> = {};
  try {
    const n = lib.dwg_get_num_objects(data);
    for (let i = 0; i < n; i++) {
      const obj = lib.dwg_get_object(data, i);
      if (!obj || lib.dwg_object_get_supertype(obj) !== 0) continue;
      const name = String(lib.dwg_object_get_dxfname(obj) || lib.dwg_object_get_name(obj) || 'UNKNOWN');
      countInto(counts, name);
    }
  } catch {
    /* census is best effort */
  }
  return counts;
}

const SUB_ENTITIES = new Set(['VERTEX', 'SEQEND', 'BLOCK', 'ENDBLK', 'ATTRIB', 'ATTDEF', 'INSERT', 'POLYLINE', 'DIMENSION', 'ACAD_PROXY_ENTITY']);

/** DXF names in the census with no counterpart among converted entities, with their counts. */
function notConvertedTypes(doc: CadDocument): [string, number][] {
  const converted = new Set(doc.entities.map((e) => e.type));
  const convertedName = (name: string) =>
    name.startsWith('DIMENSION_') ? 'DIMENSION' : name === 'POLYLINE_2D' ? 'POLYLINE2D' : name === 'POLYLINE_3D' ? 'POLYLINE3D' : name;
  const out: [string, number][] = [];
  for (const [name, n] of Object.entries(doc.fileEntityCounts ?? {})) {
    if (SUB_ENTITIES.has(name) || name.startsWith('VERTEX') || converted.has(convertedName(name))) continue;
    out.push([name, n]);
  }
  return out;
}

function validExtentSafe(min: unknown, max: unknown): { min: number[]; max: number[] } | null {
  return validExtent(pt(min), pt(max));
}
