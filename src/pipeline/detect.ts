// Format detection: magic bytes first, then the file name, then documentType. Runs on the
// first bytes of an upload before anything is stored, so a refusal stores nothing.
import { FORMATS } from '../formats/registry.js';
import { problems } from '../http/problem.js';

/** documentType values accepted at upload (matched case-insensitively, '_' ignored). */
export const DOCUMENT_TYPES = [
  'Pdf', 'Docx', 'Xlsx', 'Pptx', 'Odt', 'Ods', 'Odp', 'Rtf', 'Doc', 'Xls', 'Ppt',
  'Eml', 'Msg', 'Mbox', 'Pst', 'Sql',
  'ShpZip', 'MapInfo', 'FileGdb', 'GeoPackage', 'GeoJson', 'Kml', 'Kmz', 'Gml', 'Gpx', 'FlatGeobuf',
  'Dwg', 'Dxf', 'Csv', 'Parquet',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

const TYPE_TO_FORMAT: Record<DocumentType, string> = {
  Pdf: 'pdf', Docx: 'docx', Xlsx: 'xlsx', Pptx: 'pptx', Odt: 'odt', Ods: 'ods', Odp: 'odp', Rtf: 'rtf', Doc: 'doc', Xls: 'xls', Ppt: 'ppt',
  Eml: 'eml', Msg: 'msg', Mbox: 'mbox', Pst: 'pst', Sql: 'sql',
  ShpZip: 'shapefile', MapInfo: 'mapinfo', FileGdb: 'filegdb', GeoPackage: 'geopackage', GeoJson: 'geojson', Kml: 'kml', Kmz: 'kmz',
  Gml: 'gml', Gpx: 'gpx', FlatGeobuf: 'flatgeobuf', Dwg: 'dwg', Dxf: 'dxf', Csv: 'csv', Parquet: 'parquet',
};

const EXTENSIONS: Record<string, string> = {
  pdf: 'pdf', docx: 'docx', docm: 'docx', xlsx: 'xlsx', xlsm: 'xlsx', pptx: 'pptx', pptm: 'pptx', odt: 'odt', ods: 'ods', odp: 'odp',
  rtf: 'rtf', doc: 'doc', xls: 'xls', ppt: 'ppt', eml: 'eml', msg: 'msg', mbox: 'mbox', mbx: 'mbox', pst: 'pst', sql: 'sql',
  gpkg: 'geopackage', geojson: 'geojson', kml: 'kml', kmz: 'kmz', gml: 'gml', gpx: 'gpx', fgb: 'flatgeobuf',
  dwg: 'dwg', dxf: 'dxf', csv: 'csv', tsv: 'csv', parquet: 'parquet', geoparquet: 'parquet',
  // Templates, macro-enabled, binary and flat variants of the Office/OpenDocument formats.
  xlsb: 'xlsx', dotx: 'docx', dotm: 'docx', xltx: 'xlsx', xltm: 'xlsx', potx: 'pptx', potm: 'pptx', ppsx: 'pptx', ppsm: 'pptx',
  fodt: 'odt', fods: 'ods', fodp: 'odp', ott: 'odt', ots: 'ods', otp: 'odp', dot: 'doc', xlt: 'xls', pot: 'ppt', pps: 'ppt',
};

/** Zipped datasets named after what they hold: roads.shp.zip, parcels.gdb.zip … */
const ZIPPED_NAMES: [RegExp, string][] = [
  [/\.shp\.zip$/i, 'shapefile'],
  [/\.gdb\.zip$/i, 'filegdb'],
  [/\.gpkg\.zip$/i, 'geopackage'],
  [/\.(tab|mif)\.zip$/i, 'mapinfo'],
];
const GIS_FORMATS = new Set(Object.values(FORMATS).filter((f) => f.family === 'gis').map((f) => f.format));

/** ZIP containers whose inner layout decides the format; without a telling name, documentType is required. */
const ZIP_FORMATS = new Set(['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'kmz', 'shapefile', 'mapinfo', 'filegdb']);
// Password-protected OOXML files are OLE containers (EncryptedPackage) too.
const OLE_FORMATS = new Set(['doc', 'xls', 'ppt', 'msg', 'docx', 'xlsx', 'pptx']);

export interface Detection {
  format: string;
  /** How it was decided, for the artifact's metadata. */
  by: 'magic' | 'fileName' | 'documentType';
}

function extOf(fileName: string | undefined): string | null {
  if (!fileName) return null;
  const m = /\.([A-Za-z0-9]+)$/.exec(fileName.trim());
  return m ? m[1].toLowerCase() : null;
}

function startsWith(head: Buffer, sig: number[] | string, at = 0): boolean {
  const bytes = typeof sig === 'string' ? Buffer.from(sig, 'latin1') : Buffer.from(sig);
  return head.length >= at + bytes.length && head.subarray(at, at + bytes.length).equals(bytes);
}

function magic(head: Buffer): string | null {
  if (head.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'ole';
  if (startsWith(head, 'PAR1')) return 'parquet';
  if (startsWith(head, '!BDN')) return 'pst';
  if (/^AC1\d{3}/.test(head.subarray(0, 6).toString('latin1')) || startsWith(head, 'AC2.') || startsWith(head, 'AC1.')) return 'dwg';
  if (startsWith(head, 'AutoCAD Binary DXF')) return 'dxf';
  if (startsWith(head, 'SQLite format 3\0')) return 'sqlite';
  if (startsWith(head, [0x66, 0x67, 0x62, 0x03])) return 'flatgeobuf';
  if (startsWith(head, '{\\rtf')) return 'rtf';
  const text = head.subarray(0, 4096).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '');
  if (/^\s*0\s*\r?\n\s*SECTION\s*\r?\n/.test(text)) return 'dxf';
  if (/^From \S+.*\d{4}\s*\r?\n/.test(text)) return 'mbox';
  if (/^\s*<\?xml[^>]*>\s*(<!--[\s\S]*?-->\s*)*<kml[\s>]/i.test(text) || /^\s*<kml[\s>]/i.test(text)) return 'kml';
  if (/^\s*<\?xml[^>]*>\s*(<!--[\s\S]*?-->\s*)*<gpx[\s>]/i.test(text)) return 'gpx';
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(gml:FeatureCollection|wfs:FeatureCollection|ogr:FeatureCollection)[\s>]/.test(text)) return 'gml';
  if (/^\s*\{[\s\S]*"type"\s*:\s*"(FeatureCollection|Feature)"/.test(text)) return 'geojson';
  return null;
}

/**
 * Decides the concrete format. Throws 400 invalid_parameter when it cannot be decided
 * (e.g. a ZIP without documentType).
 */
export function detectFormat(head: Buffer, fileName: string | undefined, documentType: DocumentType | undefined): Detection {
  const ext = extOf(fileName);
  const byName = ext ? EXTENSIONS[ext] : undefined;
  const declared = documentType ? TYPE_TO_FORMAT[documentType] : undefined;
  const m = magic(head);

  if (m === 'zip') {
    // A GIS ZIP may hold any vector format; the parser finds every dataset inside.
    if (declared && (ZIP_FORMATS.has(declared) || GIS_FORMATS.has(declared))) return { format: declared, by: 'documentType' };
    const inner = officeFormatOfZip(head);
    if (inner) return { format: inner, by: 'magic' };
    if (byName && ZIP_FORMATS.has(byName) && byName !== 'mapinfo') return { format: byName, by: 'fileName' };
    const zipped = fileName ? ZIPPED_NAMES.find(([re]) => re.test(fileName.trim())) : undefined;
    if (zipped) return { format: zipped[1], by: 'fileName' };
    throw problems.invalidParameter(
      'documentType',
      'ZIP uploads need documentType (ShpZip, MapInfo, FileGdb, or an Office/OpenDocument type) unless the file name says what the archive is.',
      ['ShpZip', 'MapInfo', 'FileGdb', 'Docx', 'Xlsx', 'Pptx', 'Odt', 'Ods', 'Odp', 'Kmz'],
    );
  }
  if (m === 'ole') {
    const f = declared ?? byName;
    if (f && OLE_FORMATS.has(f)) return { format: f, by: declared ? 'documentType' : 'fileName' };
    throw problems.invalidParameter('documentType', 'This is an OLE compound file (DOC, XLS, PPT or MSG): give documentType or a file name with its extension.', ['Doc', 'Xls', 'Ppt', 'Msg']);
  }
  if (m === 'sqlite') {
    if (declared === 'geopackage' || byName === 'geopackage' || !declared) return { format: 'geopackage', by: 'magic' };
  }
  if (m && m !== 'sqlite') {
    if (declared && declared !== m) {
      throw problems.invalidParameter('documentType', `documentType says ${documentType} but the content is ${m.toUpperCase()}.`);
    }
    return { format: m, by: 'magic' };
  }
  if (declared) return { format: declared, by: 'documentType' };
  if (byName) return { format: byName, by: 'fileName' };
  if (looksLikeEmail(head)) return { format: 'eml', by: 'magic' };
  throw problems.invalidParameter(
    'documentType',
    'The format could not be recognised from the content or the file name; give fileName with an extension or documentType.',
    [...DOCUMENT_TYPES],
  );
}

/** Names of the ZIP entries whose local headers fall inside the first bytes. */
export function zipEntryNames(head: Buffer): { name: string; stored: Buffer | null }[] {
  const out: { name: string; stored: Buffer | null }[] = [];
  let at = 0;
  while (at + 30 <= head.length && head.readUInt32LE(at) === 0x04034b50) {
    const method = head.readUInt16LE(at + 8);
    const compressed = head.readUInt32LE(at + 18);
    const nameLen = head.readUInt16LE(at + 26);
    const extraLen = head.readUInt16LE(at + 28);
    const nameEnd = at + 30 + nameLen;
    if (nameEnd > head.length) break;
    const name = head.subarray(at + 30, nameEnd).toString('utf8');
    const dataStart = nameEnd + extraLen;
    const flags = head.readUInt16LE(at + 6);
    const stored = method === 0 && compressed < 256 && dataStart + compressed <= head.length ? head.subarray(dataStart, dataStart + compressed) : null;
    out.push({ name, stored });
    // A data descriptor (flag bit 3) leaves the size unknown here: stop walking.
    if (flags & 0x08) break;
    at = dataStart + compressed;
  }
  return out;
}

const ODF_MIMETYPES: Record<string, string> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
};

/** OOXML and OpenDocument packages say what they are in their first entries. */
function officeFormatOfZip(head: Buffer): string | null {
  const entries = zipEntryNames(head);
  const mimetype = entries.find((e) => e.name === 'mimetype' && e.stored);
  if (mimetype) {
    const f = ODF_MIMETYPES[mimetype.stored!.toString('latin1').trim()];
    if (f) return f;
  }
  const names = entries.map((e) => e.name);
  if (!names.includes('[Content_Types].xml') && !names.some((n) => n.startsWith('_rels/'))) return null;
  if (names.some((n) => n.startsWith('word/'))) return 'docx';
  if (names.some((n) => n.startsWith('xl/'))) return 'xlsx';
  if (names.some((n) => n.startsWith('ppt/'))) return 'pptx';
  return null;
}

const MAIL_HEADERS = new Set(['from', 'to', 'subject', 'date', 'message-id', 'mime-version', 'received', 'return-path', 'delivered-to', 'reply-to', 'x-mailer']);

/** An RFC 5322 header block: every line a header or a folded continuation, mail headers among them. */
function looksLikeEmail(head: Buffer): boolean {
  const text = head.subarray(0, 8192).toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  if (end <= 0) return false;
  const lines = text.slice(0, end).split(/\r?\n/);
  if (/^From \S/.test(lines[0])) lines.shift(); // an mbox-style envelope line before the headers
  const names: string[] = [];
  for (const line of lines) {
    const m = /^([A-Za-z0-9][A-Za-z0-9-]*):/.exec(line);
    if (m) names.push(m[1].toLowerCase());
    else if (!/^[ \t]/.test(line)) return false;
  }
  return names.length >= 2 && names.includes('from') && names.some((n) => MAIL_HEADERS.has(n) && n !== 'from' || n === 'content-type');
}
