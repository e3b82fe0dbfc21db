// Encoding detection and streaming decoding. Order: byte-order mark; BOM-less UTF-16 by its
// NUL pattern; "is this binary, not text"; strict UTF-8 on a sample; a charset detector
// (chardet) for legacy encodings; Latin-1/Windows-1252 as the fallback. Decoding uses the
// platform TextDecoder (native, fast) and iconv-lite only for labels it does not know.
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { ExtractionError } from '../kit/types.js';

export interface EncodingChoice {
  /** Reported name, lower case: 'utf-8', 'utf-16le', 'iso-8859-1', 'windows-1252', … */
  name: string;
  /** Bytes of byte-order mark to skip. */
  bomLength: number;
  source: 'bom' | 'utf-16-pattern' | 'utf-8-valid' | 'detector' | 'fallback';
  /** Decode strictly: the sample was valid UTF-8, but bytes past it have not been seen. */
  strictUtf8: boolean;
}

/**
 * Up to `bytes` bytes from the start of the file, never more than it holds (`size`): a 2 KB
 * file costs a 2 KB buffer, not the sample's 256 KiB. Read synchronously: the parse thread
 * has nothing else to do meanwhile, and an async read is a round trip through libuv's
 * process-wide thread pool for each open, read and close.
 */
export function readSample(filePath: string, bytes: number, size: number): Buffer {
  const fd = openSync(filePath, 'r');
  try {
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(bytes, size)));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

const MAGIC: Array<[string, number[]]> = [
  ['a ZIP archive (e.g. XLSX, DOCX)', [0x50, 0x4b, 0x03, 0x04]],
  ['a PDF document', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['a PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['a JPEG image', [0xff, 0xd8, 0xff]],
  ['a GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['gzip-compressed data', [0x1f, 0x8b]],
  ['an OLE2 compound document (e.g. XLS, DOC)', [0xd0, 0xcf, 0x11, 0xe0]],
  ['a 7-Zip archive', [0x37, 0x7a, 0xbc, 0xaf]],
  ['an SQLite database', [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66]],
  ['a Parquet file', [0x50, 0x41, 0x52, 0x31, 0x15]],
];

function startsWith(b: Buffer, sig: number[]): boolean {
  if (b.length < sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (b[i] !== sig[i]) return false;
  return true;
}

/** Throws ExtractionError when the sample is clearly not text. */
function rejectBinary(sample: Buffer): void {
  for (const [what, sig] of MAGIC) {
    if (startsWith(sample, sig)) throw new ExtractionError(`The file is not a text CSV: its content is ${what}.`);
  }
  let nul = 0;
  let ctrl = 0;
  for (let i = 0; i < sample.length; i++) {
    const b = sample[i];
    if (b === 0) nul++;
    else if (b < 0x20 && b !== 9 && b !== 10 && b !== 11 && b !== 12 && b !== 13 && b !== 0x1b) ctrl++;
  }
  const n = sample.length;
  // Text has almost no control bytes besides whitespace; a stray NUL is tolerated.
  if ((ctrl > 2 && ctrl / n > 0.02) || (nul > 2 && nul / n > 0.3)) {
    throw new ExtractionError(`The file is not a text CSV: it looks binary (${nul} NUL and ${ctrl} other control bytes in the first ${n} bytes).`);
  }
}

function utf16Pattern(sample: Buffer): 'utf-16le' | 'utf-16be' | null {
  const n = sample.length - (sample.length % 2);
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (sample[i] === 0) even++;
    if (sample[i + 1] === 0) odd++;
  }
  const half = n / 2;
  if (odd > 0.4 * half && even < 0.05 * half) return 'utf-16le';
  if (even > 0.4 * half && odd < 0.05 * half) return 'utf-16be';
  return null;
}

function isValidUtf8(sample: Buffer): boolean {
  // A multi-byte character cut by the sample's end is not an error.
  return utf8Validator()(sample);
}

const MULTIBYTE = new Set(['Shift_JIS', 'EUC-JP', 'ISO-2022-JP', 'GB18030', 'Big5', 'EUC-KR', 'ISO-2022-KR', 'ISO-2022-CN']);
const LATIN = new Set(['ISO-8859-1', 'windows-1252', 'ISO-8859-9', 'ISO-8859-15']);

/** Picks a legacy (non-UTF) encoding for bytes that are not valid UTF-8. */
export function legacyEncoding(sample: Buffer): Pick<EncodingChoice, 'name' | 'source'> {
  let nonAscii = 0;
  let c1 = 0;
  for (let i = 0; i < sample.length; i++) {
    const b = sample[i];
    if (b >= 0x80) {
      nonAscii++;
      if (b < 0xa0) c1++;
    }
  }
  const latin = c1 > 0 ? 'windows-1252' : 'iso-8859-1';
  const top = chardet.analyse(sample)[0];
  if (top && !LATIN.has(top.name)) {
    const name = top.name;
    const ok =
      (MULTIBYTE.has(name) && top.confidence >= 50 && nonAscii >= 8) ||
      (!MULTIBYTE.has(name) && !name.startsWith('UTF') && top.confidence >= 50 && nonAscii >= 16);
    if (ok && canDecode(name)) return { name: name.toLowerCase(), source: 'detector' };
  }
  return { name: latin, source: top && LATIN.has(top.name) ? 'detector' : 'fallback' };
}

function canDecode(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return iconv.encodingExists(label);
  }
}

/** Detects the encoding from the first bytes of the file. Throws for binary content. */
export function detectEncoding(sample: Buffer, wholeFile: boolean): EncodingChoice {
  const b = sample;
  if (startsWith(b, [0xef, 0xbb, 0xbf])) return { name: 'utf-8', bomLength: 3, source: 'bom', strictUtf8: false };
  if (startsWith(b, [0xff, 0xfe, 0, 0])) return { name: 'utf-32le', bomLength: 4, source: 'bom', strictUtf8: false };
  if (startsWith(b, [0, 0, 0xfe, 0xff])) return { name: 'utf-32be', bomLength: 4, source: 'bom', strictUtf8: false };
  if (startsWith(b, [0xff, 0xfe])) return { name: 'utf-16le', bomLength: 2, source: 'bom', strictUtf8: false };
  if (startsWith(b, [0xfe, 0xff])) return { name: 'utf-16be', bomLength: 2, source: 'bom', strictUtf8: false };
  const u16 = utf16Pattern(b);
  if (u16) return { name: u16, bomLength: 0, source: 'utf-16-pattern', strictUtf8: false };
  rejectBinary(b);
  if (isValidUtf8(b)) return { name: 'utf-8', bomLength: 0, source: 'utf-8-valid', strictUtf8: !wholeFile };
  return { ...legacyEncoding(b), bomLength: 0, strictUtf8: false };
}

/** Raised by a strict UTF-8 decode when bytes past the sample are not UTF-8. */
export class NotUtf8Error extends Error {
  constructor(
    readonly offset: number,
    readonly chunk: Buffer,
  ) {
    super(`invalid UTF-8 near byte ${offset}`);
  }
}

interface Decoder {
  /** Decodes the next chunk; returns null when strict UTF-8 validation fails. */
  write(b: Buffer): string | null;
  end(): string;
}

function utf8SeqLen(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/**
 * Chunked strict UTF-8 validation with the native validator: a character cut by a chunk
 * boundary is checked once its remaining bytes arrive.
 */
function utf8Validator(): (chunk: Buffer) => boolean {
  let carry: Buffer | null = null;
  return (chunk) => {
    let start = 0;
    if (carry) {
      const need = utf8SeqLen(carry[0]) - carry.length;
      if (!isUtf8(Buffer.concat([carry, chunk.subarray(0, need)]))) return false;
      start = need;
      carry = null;
    }
    let end = chunk.length;
    for (let k = 1; k <= 3 && chunk.length - k >= start; k++) {
      const b = chunk[chunk.length - k];
      if ((b & 0xc0) === 0x80) continue;
      if (b >= 0xc0 && utf8SeqLen(b) > k) end = chunk.length - k;
      break;
    }
    if (end < chunk.length) carry = Buffer.from(chunk.subarray(end));
    return isUtf8(chunk.subarray(start, end));
  };
}

function makeDecoder(enc: EncodingChoice): Decoder {
  // Node's StringDecoder and latin1 are several times faster than TextDecoder.
  if (enc.name === 'utf-8' || enc.name === 'utf-16le') {
    const sd = new StringDecoder(enc.name === 'utf-8' ? 'utf8' : 'utf16le');
    const valid = enc.name === 'utf-8' && enc.strictUtf8 ? utf8Validator() : null;
    return {
      write: (b) => (valid && !valid(b) ? null : sd.write(b)),
      end: () => sd.end(),
    };
  }
  if (enc.name === 'iso-8859-1') return { write: (b) => b.toString('latin1'), end: () => '' };
  let td: InstanceType<typeof TextDecoder> | null;
  try {
    td = new TextDecoder(enc.name, { ignoreBOM: true });
  } catch {
    td = null;
  }
  if (td) {
    const t = td;
    return { write: (b) => t.decode(b, { stream: true }), end: () => t.decode() };
  }
  const d = iconv.getDecoder(enc.name, { stripBOM: false });
  return { write: (b) => d.write(b), end: () => d.end() ?? '' };
}

const CHUNK_BYTES = 1 << 20;

/** Removes NUL characters from decoded text, counting them. */
class NulRemover {
  count = 0;
  clean(t: string): string {
    if (t.indexOf('\0') < 0) return t;
    let k = -1;
    while ((k = t.indexOf('\0', k + 1)) >= 0) this.count++;
    return t.replaceAll('\0', '');
  }
}

/**
 * Streams the file as decoded text chunks (BOM skipped, NULs removed and counted). `onText`
 * may be async; it is awaited before the next chunk is read, which bounds memory. `source` is
 * the file's path, or the whole file already in memory (a file no larger than its detection
 * sample is not read again).
 */
export async function streamText(
  source: string | Buffer,
  enc: EncodingChoice,
  onText: (text: string, bytesRead: number) => void | Promise<void>,
): Promise<{ nulChars: number }> {
  const dec = makeDecoder(enc);
  let bytes = enc.bomLength;
  const nuls = new NulRemover();
  const clean = (t: string) => nuls.clean(t);
  const stream = typeof source === 'string' ? createReadStream(source, { start: enc.bomLength, highWaterMark: CHUNK_BYTES }) : null;
  // In memory: one chunk, the whole file after its byte-order mark.
  const chunks: AsyncIterable<Buffer> | Buffer[] = stream ?? [(source as Buffer).subarray(enc.bomLength)];
  try {
    for await (const chunk of chunks) {
      const text = dec.write(chunk);
      if (text === null) throw new NotUtf8Error(bytes, chunk);
      bytes += chunk.length;
      if (text.length) await onText(clean(text), bytes);
    }
    const tail = dec.end();
    if (tail.length) await onText(clean(tail), bytes);
  } finally {
    stream?.destroy();
  }
  return { nulChars: nuls.count };
}

/** A whole file decoded as streamText() hands it over: its text, then the decoder's tail, NULs removed and counted. */
export interface DecodedFile {
  text: string;
  /** What the decoder holds back at the end (an incomplete last character, as U+FFFD): usually empty. */
  tail: string;
  nulChars: number;
}

/**
 * Decodes a file held whole in memory (its detection sample) once, for the sniffing (`text`
 * is what decodeSample() returns) and for both passes (`text` + `tail` is what streamText()
 * hands over), instead of three times. Not for a strict UTF-8 choice: that one checks bytes
 * past a sample, and a whole file has none.
 */
export function decodeWhole(file: Buffer, enc: EncodingChoice): DecodedFile {
  const dec = makeDecoder({ ...enc, strictUtf8: false });
  const nuls = new NulRemover();
  const text = nuls.clean(dec.write(file.subarray(enc.bomLength)) ?? '');
  const tail = nuls.clean(dec.end());
  return { text, tail, nulChars: nuls.count };
}

/** Decodes the sample for sniffing (BOM skipped; an incomplete trailing character dropped). */
export function decodeSample(sample: Buffer, enc: EncodingChoice): string {
  const dec = makeDecoder({ ...enc, strictUtf8: false });
  return (dec.write(sample.subarray(enc.bomLength)) ?? '').replaceAll('\0', '');
}
