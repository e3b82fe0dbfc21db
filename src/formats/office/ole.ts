// Checks on OLE compound files (legacy DOC/XLS/PPT, and encrypted OOXML, which Office
// stores as an OLE file holding EncryptionInfo + EncryptedPackage) before anything is
// converted: encryption is reported as such, and a file that is not what it claims fails
// with a clear reason instead of reaching the converter. cfb follows sector chains without
// loop checks, so every file passes the OLE2 guard before cfb sees it.
import fs from 'node:fs/promises';
import CFB from 'cfb';
import { assertSoundOle2, assertSoundOle2File } from '../ole2-guard.js';
import { printable } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';

const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const MAX_OLE_BYTES = 512 * 1024 * 1024;

export function isOle(h: Buffer): boolean {
  return h.length >= 8 && h.subarray(0, 8).equals(OLE_MAGIC);
}

export function isRtf(h: Buffer): boolean {
  return h.subarray(0, 5).toString('latin1') === '{\\rtf';
}

/** Mostly printable text (UTF-8 or ASCII) and not markup: a plain text file. */
export function looksLikePlainText(h: Buffer): boolean {
  if (!h.length) return true;
  let bad = 0;
  for (const b of h) if (b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f) bad++;
  const s = h.toString('utf8').trimStart();
  return bad / h.length < 0.02 && !s.startsWith('<');
}

export type OleVerdict = { kind: 'doc' | 'xls' | 'ppt' };

function stream(cfb: CFB.CFB$Container, name: string): Buffer | null {
  const e = CFB.find(cfb, name);
  if (!e || !e.content) return null;
  return Buffer.from(e.content as Uint8Array);
}

/**
 * Opens an OLE file and classifies it; throws encrypted_document for protected files and
 * corrupt_document for a damaged container.
 */
export async function inspectOle(filePath: string, expected: 'doc' | 'xls' | 'ppt' | 'ooxml'): Promise<OleVerdict> {
  const st = await fs.stat(filePath);
  if (st.size > MAX_OLE_BYTES) throw new ExtractionError(`OLE compound file of ${st.size} bytes is over the ${MAX_OLE_BYTES}-byte limit`);
  await assertSoundOle2File(filePath);
  let cfb: CFB.CFB$Container;
  try {
    cfb = CFB.read(await fs.readFile(filePath), { type: 'buffer' });
  } catch (err) {
    throw new ExtractionError("The file's OLE2 compound-document container is damaged; the document cannot be read.", 'corrupt_document', false, {
      cause: err,
    });
  }
  const names = cfb.FullPaths.map((p) => p.replace(/^[^/]*\//, '')).filter(Boolean);
  const has = (n: string) => names.some((x) => x.toLowerCase() === n.toLowerCase());
  if (has('EncryptionInfo') || has('EncryptedPackage')) {
    throw new ExtractionError('the document is password-protected (encrypted Office package); it cannot be parsed without the password', 'encrypted_document');
  }
  if (has('WordDocument')) {
    const wd = stream(cfb, 'WordDocument');
    if (!wd || wd.length < 0x20) throw new ExtractionError('corrupt Word document: the WordDocument stream is truncated', 'corrupt_document');
    const flags = wd.readUInt16LE(0x0a);
    if (flags & 0x0100) throw new ExtractionError('the Word document is password-protected; it cannot be parsed without the password', 'encrypted_document');
    return { kind: 'doc' };
  }
  if (has('Workbook') || has('Book')) {
    const wb = stream(cfb, has('Workbook') ? 'Workbook' : 'Book');
    if (wb && xlsHasFilePass(wb))
      throw new ExtractionError('the workbook is password-protected; it cannot be parsed without the password', 'encrypted_document');
    return { kind: 'xls' };
  }
  if (has('PowerPoint Document')) {
    if (has('EncryptedSummary'))
      throw new ExtractionError('the presentation is password-protected; it cannot be parsed without the password', 'encrypted_document');
    return { kind: 'ppt' };
  }
  if (expected === 'ooxml') throw new ExtractionError('an OLE compound file without an Office package inside; not an OOXML document');
  throw new ExtractionError(
    `this OLE compound file holds no ${expected.toUpperCase()} content (streams: ${names
      .slice(0, 8)
      .map((n) => printable(n, 40))
      .join(', ')})`,
  );
}

/** FILEPASS (0x002F) among the first records of the workbook globals. */
function xlsHasFilePass(wb: Buffer): boolean {
  let off = 0;
  for (let i = 0; i < 64 && off + 4 <= wb.length; i++) {
    const type = wb.readUInt16LE(off);
    const len = wb.readUInt16LE(off + 2);
    if (type === 0x002f) return true;
    if (type === 0x000a && i > 0) return false; // EOF of the globals
    off += 4 + len;
  }
  return false;
}

/** BIFF2–BIFF4 worksheets are bare record streams starting with a BOF record. */
export function isBareBiff(h: Buffer): boolean {
  if (h.length < 4) return false;
  const t = h.readUInt16LE(0);
  return t === 0x0009 || t === 0x0209 || t === 0x0409 || t === 0x0809;
}

/** Page count stored in a legacy file's SummaryInformation (PIDSI_PAGECOUNT), if any. */
export async function olePageCount(filePath: string): Promise<number | null> {
  try {
    const bytes = await fs.readFile(filePath);
    await assertSoundOle2(bytes);
    const cfb = CFB.read(bytes, { type: 'buffer' });
    const si = stream(cfb, '\u0005SummaryInformation');
    if (!si || si.length < 48) return null;
    const sec = si.readUInt32LE(44);
    if (sec + 8 > si.length) return null;
    const count = si.readUInt32LE(sec + 4);
    for (let i = 0; i < Math.min(count, 256); i++) {
      const at = sec + 8 + i * 8;
      if (at + 8 > si.length) break;
      const id = si.readUInt32LE(at);
      const off = si.readUInt32LE(at + 4);
      if (id !== 14 || sec + off + 8 > si.length) continue;
      const type = si.readUInt16LE(sec + off);
      if (type !== 3) return null; // VT_I4
      const v = si.readInt32LE(sec + off + 4);
      return v > 0 ? v : null;
    }
  } catch {
    /* no summary information */
  }
  return null;
}
