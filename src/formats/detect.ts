// Format detection: magic bytes first, then the file name, then documentType. Runs on the
// first bytes of an upload before anything is stored, so a refusal stores nothing. What each
// format looks like is declared by its family (src/formats/<family>/family.ts).
import { DOCUMENT_TYPES, FAMILIES, FORMAT_LIST } from './registry.js';
import type { FormatDescriptor, Signature, ZipEntry } from './kit/family.js';

export interface Detection {
  format: string;
  /** How it was decided, for the artifact's metadata. */
  by: 'magic' | 'fileName' | 'documentType';
}

/**
 * Detection could not decide, or the content contradicts documentType. The service answers
 * 400 invalid_parameter naming `parameter` and, when given, its `allowed` values.
 */
export class UndecidedFormat extends Error {
  constructor(
    message: string,
    readonly parameter: 'documentType',
    readonly allowed?: readonly string[],
  ) {
    super(message);
    this.name = 'UndecidedFormat';
  }
}

const formats = FORMAT_LIST.map((f) => f.descriptor);
const byType = new Map(formats.map((d) => [d.documentType, d.format]));
const byExtension = new Map(formats.flatMap((d) => d.extensions.map((e) => [e, d.format] as const)));
const zipFormats = new Set(formats.filter((d) => d.container === 'zip').map((d) => d.format));
const oleFormats = new Set(formats.filter((d) => d.container === 'ole' || d.alsoInOle).map((d) => d.format));
const zipAnyFormat = new Set(FAMILIES.filter((f) => f.zipHoldsAnyFormat).flatMap((f) => f.formats.map((d) => d.format)));
const zippedNames = formats.flatMap((d) => (d.zippedNames ?? []).map((re) => [re, d.format] as const));
const weakFormats = new Set(formats.filter((d) => d.signatures?.some((s) => 'prefix' in s && s.weak)).map((d) => d.format));
const zipLayouts = FAMILIES.flatMap((f) => (f.formatOfZip ? [f.formatOfZip] : []));
const sniffed = formats.filter((d): d is FormatDescriptor & { sniff: (h: Buffer) => boolean } => d.sniff !== undefined);

function signaturesOf<K extends 'nearStart' | 'prefix' | 'test' | 'text'>(kind: K): [Extract<Signature, Record<K, unknown>>, string][] {
  return formats.flatMap((d) =>
    (d.signatures ?? [])
      .filter((s): s is Extract<Signature, Record<K, unknown>> => kind in s)
      .map((s) => [s, d.format] as [Extract<Signature, Record<K, unknown>>, string]),
  );
}
const nearStart = signaturesOf('nearStart');
const binary: [(head: Buffer) => boolean, string][] = [
  ...signaturesOf('prefix').map(([s, f]) => [(head: Buffer) => startsWith(head, s.prefix), f] as [(head: Buffer) => boolean, string]),
  ...signaturesOf('test').map(([s, f]) => [s.test, f] as [(head: Buffer) => boolean, string]),
];
const textual = signaturesOf('text');

const ZIP = [
  [0x50, 0x4b, 0x03, 0x04],
  [0x50, 0x4b, 0x05, 0x06],
];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function extOf(fileName: string | undefined): string | null {
  if (!fileName) return null;
  const m = /\.([A-Za-z0-9]+)$/.exec(fileName.trim());
  return m ? m[1].toLowerCase() : null;
}

function startsWith(head: Buffer, sig: readonly number[] | string, at = 0): boolean {
  const bytes = typeof sig === 'string' ? Buffer.from(sig, 'latin1') : Buffer.from(sig);
  return head.length >= at + bytes.length && head.subarray(at, at + bytes.length).equals(bytes);
}

/** The format (or container, 'zip' / 'ole') the first bytes show. */
function magic(head: Buffer): string | null {
  for (const [s, format] of nearStart) if (head.subarray(0, s.within).includes(s.nearStart)) return format;
  if (ZIP.some((sig) => startsWith(head, sig))) return 'zip';
  if (startsWith(head, OLE)) return 'ole';
  for (const [matches, format] of binary) if (matches(head)) return format;
  const text = head
    .subarray(0, 4096)
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '');
  for (const [s, format] of textual) if (s.text.test(text)) return format;
  return null;
}

/** The format documentType names (any case, '_' ignored), if it names one. */
function declaredFormat(documentType: string | undefined): string | undefined {
  return documentType ? byType.get(documentType) : undefined;
}

/**
 * Decides the concrete format. Throws UndecidedFormat when it cannot be decided (e.g. a ZIP
 * without documentType) or the content contradicts documentType.
 */
export function detectFormat(head: Buffer, fileName: string | undefined, documentType: string | undefined): Detection {
  const ext = extOf(fileName);
  const byName = ext ? byExtension.get(ext) : undefined;
  const declared = declaredFormat(documentType);
  const m = magic(head);

  if (m === 'zip') {
    if (declared && (zipFormats.has(declared) || zipAnyFormat.has(declared))) return { format: declared, by: 'documentType' };
    const entries = zipEntryNames(head);
    for (const layout of zipLayouts) {
      const inner = layout(entries);
      if (inner) return { format: inner, by: 'magic' };
    }
    if (byName && zipFormats.has(byName)) return { format: byName, by: 'fileName' };
    const zipped = fileName ? zippedNames.find(([re]) => re.test(fileName.trim())) : undefined;
    if (zipped) return { format: zipped[1], by: 'fileName' };
    throw new UndecidedFormat(
      'ZIP uploads need documentType (ShpZip, MapInfo, FileGdb, or an Office/OpenDocument type) unless the file name says what the archive is.',
      'documentType',
      formats.filter((d) => zipFormats.has(d.format)).map((d) => d.documentType),
    );
  }
  if (m === 'ole') {
    const f = declared ?? byName;
    if (f && oleFormats.has(f)) return { format: f, by: declared ? 'documentType' : 'fileName' };
    throw new UndecidedFormat(
      'This is an OLE compound file (DOC, XLS, PPT or MSG): give documentType or a file name with its extension.',
      'documentType',
      formats.filter((d) => d.container === 'ole').map((d) => d.documentType),
    );
  }
  if (m && weakFormats.has(m)) {
    if (declared === m || byName === m || !declared) return { format: m, by: 'magic' };
  } else if (m) {
    if (declared && declared !== m) throw new UndecidedFormat(`documentType says ${documentType} but the content is ${m.toUpperCase()}.`, 'documentType');
    return { format: m, by: 'magic' };
  }
  if (declared) return { format: declared, by: 'documentType' };
  if (byName) return { format: byName, by: 'fileName' };
  const sniff = sniffed.find((d) => d.sniff(head));
  if (sniff) return { format: sniff.format, by: 'magic' };
  throw new UndecidedFormat(
    'The format could not be recognised from the content or the file name; give fileName with an extension or documentType.',
    'documentType',
    [...DOCUMENT_TYPES],
  );
}

/** Names of the ZIP entries whose local headers fall inside the first bytes. */
function zipEntryNames(head: Buffer): ZipEntry[] {
  const out: ZipEntry[] = [];
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
