// What the document, spreadsheet and presentation flows share: the per-parse context, the
// container check every input passes first, OpenDocument package reading, macro detection and
// the LibreOffice conversion of inputs that are not OOXML.
import { printable } from '../kit/reasons.js';
import { ExtractionError, type ParseInput } from '../kit/types.js';
import { convert, libreOfficeAvailable, libreOfficeRun } from './libreoffice.js';
import { engineUnavailable } from '../kit/engine-unavailable.js';
import { inspectOle, isBareBiff, isOle, isRtf } from './ole.js';
import { isZipHead, readFileHead } from '../kit/file-head.js';
import { odfProperties } from './props.js';
import { guardOdfPackage } from './odf-guard.js';
import type { OfficePropertiesT } from './schema.js';
import { ZipPackage } from './zip.js';

export type OfficeFormat = 'docx' | 'doc' | 'odt' | 'rtf' | 'xlsx' | 'xls' | 'ods' | 'pptx' | 'ppt' | 'odp';

/** Bytes read to tell the container and text encodings apart. */
export const HEAD_BYTES = 4096;

export interface Ctx {
  input: ParseInput;
  format: OfficeFormat;
  warnings: string[];
  metadata: Record<string, unknown>;
  work: string;
}

/** Refuses files that are not the container their format needs; reports encryption. */
export async function precheck(ctx: Ctx): Promise<'zip' | 'ole' | 'rtf' | 'flat-xml' | 'biff' | 'other'> {
  const h = await readFileHead(ctx.input.filePath, HEAD_BYTES);
  if (h.length === 0) throw new ExtractionError('the file is empty');
  if (isOle(h)) {
    const expected = ctx.format === 'doc' || ctx.format === 'xls' || ctx.format === 'ppt' ? ctx.format : 'ooxml';
    const v = await inspectOle(ctx.input.filePath, expected);
    if (v.kind !== expected) throw new ExtractionError(`the file is a legacy ${v.kind.toUpperCase()} document, not ${ctx.format.toUpperCase()}`);
    return 'ole';
  }
  if (isZipHead(h)) return 'zip';
  if (isRtf(h)) return 'rtf';
  const text = h
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<?xml') || text.startsWith('<office:document')) return 'flat-xml';
  if (isBareBiff(h)) return 'biff';
  return 'other';
}

async function checkOdfEncryption(zip: ZipPackage): Promise<void> {
  const manifest = await zip.readTextIfPresent('META-INF/manifest.xml', 4 << 20);
  if (manifest && /encryption-data/.test(manifest)) {
    throw new ExtractionError('the OpenDocument file is password-protected (encrypted parts); it cannot be parsed without the password', 'encrypted_document');
  }
  const mt = await zip.readTextIfPresent('mimetype', 1024);
  if (mt !== null && !/^application\/vnd\.oasis\.opendocument\./.test(mt.trim())) {
    throw new ExtractionError(`not an OpenDocument file (its mimetype is ${printable(mt.trim(), 80)})`);
  }
}

/** OOXML: macro-enabled package type (docm/xlsm/pptm) and whether a VBA project is present. */
export async function ooxmlMacros(zip: ZipPackage, metadata: Record<string, unknown>): Promise<void> {
  const ct = await zip.readTextIfPresent('[Content_Types].xml', 4 << 20).catch(() => null);
  if (ct && /macroEnabled/i.test(ct)) metadata.macroEnabled = true;
  if (zip.names().some((n) => /vbaProject\.bin$/i.test(n))) metadata.hasMacros = true;
}

/** OpenDocument packages keep Basic macros under Basic/<library>/<module>.xml. */
function odfHasMacros(zip: ZipPackage): boolean {
  return zip.names().some((n) => /^Basic\/[^/]+\/[^/]+\.xml$/.test(n) && !/script-l[bc]\.xml$/.test(n));
}

/** An OpenDocument package (the input itself): its meta.xml properties; notes Basic macros in metadata.hasMacros. */
export async function readOdfPackage(ctx: Ctx): Promise<OfficePropertiesT> {
  const zip = await ZipPackage.open(ctx.input.filePath);
  try {
    await checkOdfEncryption(zip);
    await guardOdfPackage(zip);
    const properties = await odfProperties(zip, ctx.warnings);
    if (odfHasMacros(zip)) ctx.metadata.hasMacros = true;
    return properties;
  } finally {
    zip.close();
  }
}

/**
 * The input converted by LibreOffice (`filter` such as 'docx:MS Word 2007 XML'), noted in
 * metadata.converter; `what` names the input in the error when LibreOffice is not installed.
 */
export async function convertInput(ctx: Ctx, filter: string, inputExt: string, what: string): Promise<string> {
  if (!libreOfficeAvailable(ctx.input.settings.engines)) throw engineUnavailable('LibreOffice', `to read ${what}`);
  const r = await convert(ctx.input.filePath, filter, ctx.work, libreOfficeRun(ctx.input.settings), { inputExt });
  ctx.metadata.converter = { engine: 'libreoffice', to: filter.slice(0, filter.indexOf(':')), millis: r.millis };
  return r.outputPath;
}

export function dropConverterProps(p: OfficePropertiesT): OfficePropertiesT {
  const { pages: _p, application: _a, template: _t, words: _w, characters: _c, ...rest } = p;
  return rest;
}
