// Text helpers shared by the SQL splitters: decoding the upload, and turning offsets into
// 1-based line/column positions.
import { readFile } from 'node:fs/promises';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { ExtractionError } from '../types.js';

/** Largest SQL file read (decoded text is held in memory while statements are split). */
export const MAX_SQL_BYTES = 128 * 1024 * 1024;

export interface DecodedText {
  text: string;
  encoding: string;
  bom: boolean;
}

/** Decodes an SQL file: BOM first, then strict UTF-8, then a charset detector. */
export async function readSqlText(filePath: string, size: number): Promise<DecodedText> {
  if (size > MAX_SQL_BYTES) {
    throw new ExtractionError(`SQL file is ${size} bytes; the largest accepted is ${MAX_SQL_BYTES} bytes`, 'document_too_large');
  }
  const buf = await readFile(filePath);
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return { text: buf.subarray(3).toString('utf8'), encoding: 'utf-8', bom: true };
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { text: iconv.decode(buf.subarray(2), 'utf-16le'), encoding: 'utf-16le', bom: true };
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return { text: iconv.decode(buf.subarray(2), 'utf-16be'), encoding: 'utf-16be', bom: true };
  if (buf.includes(0)) {
    // UTF-16 without a BOM shows NULs in every other byte; anything else with NULs is binary.
    const evenNuls = countNuls(buf, 0);
    const oddNuls = countNuls(buf, 1);
    const half = buf.length / 2;
    if (oddNuls > half * 0.3 && evenNuls < half * 0.05) return { text: iconv.decode(buf, 'utf-16le'), encoding: 'utf-16le', bom: false };
    if (evenNuls > half * 0.3 && oddNuls < half * 0.05) return { text: iconv.decode(buf, 'utf-16be'), encoding: 'utf-16be', bom: false };
    throw new ExtractionError('the file contains binary data (NUL bytes), not SQL text');
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(buf), encoding: 'utf-8', bom: false };
  } catch {
    const guess = chardet.detect(buf.subarray(0, 1024 * 1024)) ?? 'windows-1252';
    const enc = iconv.encodingExists(guess) && !/^utf-?8$/i.test(guess) ? guess : 'windows-1252';
    return { text: iconv.decode(buf, enc), encoding: enc.toLowerCase(), bom: false };
  }
}

function countNuls(buf: Buffer, parity: number): number {
  let n = 0;
  const end = Math.min(buf.length, 64 * 1024);
  for (let i = parity; i < end; i += 2) if (buf[i] === 0) n++;
  return (n * buf.length) / Math.max(1, end);
}

/** Maps string offsets to 1-based line and column (column in UTF-16 code units + 1). */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.starts.push(i + 1);
      else if (c === 13 && text.charCodeAt(i + 1) !== 10) this.starts.push(i + 1);
    }
  }

  position(offset: number): { offset: number; line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { offset, line: lo + 1, column: offset - this.starts[lo] + 1 };
  }
}

/** Maps UTF-8 byte offsets (as libpg-query reports them) to string offsets. */
export class ByteOffsets {
  private readonly ascii: boolean;
  private byteAt: Int32Array | null = null;

  constructor(private readonly text: string) {
    this.ascii = !/[^\x00-\x7f]/.test(text);
  }

  toChar(byteOffset: number): number {
    if (this.ascii) return byteOffset;
    if (!this.byteAt) this.build();
    const b = this.byteAt!;
    let lo = 0;
    let hi = b.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (b[mid] <= byteOffset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private build(): void {
    // byteAt[i] = UTF-8 byte offset of string index i (one extra slot for the end).
    const t = this.text;
    const arr = new Int32Array(t.length + 1);
    let bytes = 0;
    for (let i = 0; i < t.length; i++) {
      arr[i] = bytes;
      const c = t.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < t.length) {
        arr[i + 1] = bytes;
        bytes += 4;
        i++;
      } else bytes += 3;
    }
    arr[t.length] = bytes;
    this.byteAt = arr;
  }
}
