// Office and OpenDocument: OOXML read directly; the binary and OpenDocument formats and RTF
// converted to OOXML by LibreOffice first.
import type { FamilyDescriptor, FormatDescriptor, ZipEntry } from '../kit/family.js';
import { OfficeContent } from './schema.js';

const office = async () => import('./index.js');

/** Formats LibreOffice converts to OOXML before they are read. */
const CONVERTED_BY_LIBREOFFICE: ReadonlySet<string> = new Set(['doc', 'xls', 'ppt', 'rtf', 'odt', 'ods', 'odp']);

const ODF_MIMETYPES: Record<string, string> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
};

/** OOXML and OpenDocument packages say what they are in their first entries. */
function formatOfZip(entries: readonly ZipEntry[]): string | null {
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

// Templates, macro-enabled, binary and flat variants are named by their own extensions.
const formats: FormatDescriptor[] = [
  {
    format: 'docx',
    documentType: 'Docx',
    extensions: ['docx', 'docm', 'dotx', 'dotm'],
    container: 'zip',
    alsoInOle: true,
    load: async () => (await office()).parseDocx,
  },
  {
    format: 'xlsx',
    documentType: 'Xlsx',
    extensions: ['xlsx', 'xlsm', 'xlsb', 'xltx', 'xltm'],
    container: 'zip',
    alsoInOle: true,
    load: async () => (await office()).parseXlsx,
  },
  {
    format: 'pptx',
    documentType: 'Pptx',
    extensions: ['pptx', 'pptm', 'potx', 'potm', 'ppsx', 'ppsm'],
    container: 'zip',
    alsoInOle: true,
    load: async () => (await office()).parsePptx,
  },
  { format: 'odt', documentType: 'Odt', extensions: ['odt', 'fodt', 'ott'], container: 'zip', load: async () => (await office()).parseOdt },
  { format: 'ods', documentType: 'Ods', extensions: ['ods', 'fods', 'ots'], container: 'zip', load: async () => (await office()).parseOds },
  { format: 'odp', documentType: 'Odp', extensions: ['odp', 'fodp', 'otp'], container: 'zip', load: async () => (await office()).parseOdp },
  { format: 'rtf', documentType: 'Rtf', extensions: ['rtf'], signatures: [{ prefix: '{\\rtf' }], load: async () => (await office()).parseRtf },
  { format: 'doc', documentType: 'Doc', extensions: ['doc', 'dot'], container: 'ole', load: async () => (await office()).parseDoc },
  { format: 'xls', documentType: 'Xls', extensions: ['xls', 'xlt'], container: 'ole', load: async () => (await office()).parseXls },
  { format: 'ppt', documentType: 'Ppt', extensions: ['ppt', 'pot', 'pps'], container: 'ole', load: async () => (await office()).parsePpt },
];

export const officeFamily: FamilyDescriptor = {
  family: 'office',
  title: 'Office / OpenDocument',
  docPage: 'office.md',
  formats,
  routing: [],
  chunks: true,
  units: 'pages (sheet, slide = 1)',
  content: { name: 'OfficeContent', schema: OfficeContent },
  /**
   * A DOCX needs LibreOffice only when every one is rendered (officeRender 'always',
   * DOCPARSE_OFFICE_RENDER): with "auto" most are not, and one that is fails on a node without
   * it (engine_unavailable).
   */
  engines(format, _options, officeRender) {
    if (CONVERTED_BY_LIBREOFFICE.has(format)) return [{ engine: 'LibreOffice', why: `to read ${format.toUpperCase()} documents` }];
    if (format === 'docx' && officeRender === 'always') return [{ engine: 'LibreOffice', why: 'to count the pages of DOCX documents' }];
    return [];
  },
  textInAttachments: true,
  formatOfZip,
};
