// DXF group codes and their values: the tag stream of an ASCII DXF (in the encoding its bytes
// are in) or a binary one. dxf.ts builds the drawing from these tags.
import iconv from 'iconv-lite';
import { hasUnprintable, printable } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';

export type Val = string | number | boolean;
export interface Tags {
  codes: number[];
  values: Val[];
}

export const BINARY_SENTINEL = Buffer.from('AutoCAD Binary DXF\r\n\x1a\0', 'latin1');

/** Value type of a group code (DXF reference, "Group Code Value Types"). */
function valueKind(code: number): 'str' | 'dbl' | 'i16' | 'i32' | 'i64' | 'bool' | 'bin' {
  if (code >= 10 && code <= 59) return 'dbl';
  if (code >= 60 && code <= 79) return 'i16';
  if (code >= 90 && code <= 99) return 'i32';
  if (code >= 110 && code <= 149) return 'dbl';
  if (code >= 160 && code <= 169) return 'i64';
  if (code >= 170 && code <= 179) return 'i16';
  if (code >= 210 && code <= 239) return 'dbl';
  if (code >= 270 && code <= 289) return 'i16';
  if (code >= 290 && code <= 299) return 'bool';
  if (code >= 310 && code <= 319) return 'bin';
  if (code >= 370 && code <= 389) return 'i16';
  if (code >= 400 && code <= 409) return 'i16';
  if (code >= 420 && code <= 429) return 'i32';
  if (code >= 440 && code <= 459) return 'i32';
  if (code >= 460 && code <= 469) return 'dbl';
  if (code === 1004) return 'bin';
  if (code >= 1010 && code <= 1059) return 'dbl';
  if (code >= 1060 && code <= 1070) return 'i16';
  if (code === 1071) return 'i32';
  return 'str';
}

export function readBinaryTags(buf: Buffer): Tags {
  const codes: number[] = [];
  const values: Val[] = [];
  let i = BINARY_SENTINEL.length;
  const need = (n: number) => {
    if (i + n > buf.length) throw new ExtractionError(`binary DXF is truncated at byte ${i}`);
  };
  while (i < buf.length) {
    need(2);
    const code = buf.readUInt16LE(i);
    i += 2;
    switch (valueKind(code)) {
      case 'dbl':
        need(8);
        values.push(buf.readDoubleLE(i));
        i += 8;
        break;
      case 'i16':
        need(2);
        values.push(buf.readInt16LE(i));
        i += 2;
        break;
      case 'i32':
        need(4);
        values.push(buf.readInt32LE(i));
        i += 4;
        break;
      case 'i64':
        need(8);
        values.push(Number(buf.readBigInt64LE(i)));
        i += 8;
        break;
      case 'bool':
        need(1);
        values.push(buf[i] !== 0);
        i += 1;
        break;
      case 'bin': {
        need(1);
        const n = buf[i];
        need(1 + n);
        values.push(buf.subarray(i + 1, i + 1 + n).toString('hex'));
        i += 1 + n;
        break;
      }
      default: {
        const end = buf.indexOf(0, i);
        if (end < 0) throw new ExtractionError(`binary DXF is truncated: unterminated string at byte ${i}`);
        values.push(buf.toString('utf8', i, end));
        i = end + 1;
      }
    }
    codes.push(code);
    if (code === 0 && values[values.length - 1] === 'EOF') break;
  }
  return { codes, values };
}

/** Text of an ASCII DXF: UTF-8 when valid (always from R2007), else the $DWGCODEPAGE code page. */
export function decodeText(buf: Buffer): { text: string; encoding: string } {
  const start = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(start)), encoding: 'utf-8' };
  } catch {
    const head = buf.subarray(0, 64 * 1024).toString('latin1');
    const m = /\$DWGCODEPAGE\s*\r?\n\s*3\s*\r?\n\s*([A-Za-z_0-9-]+)/.exec(head);
    const cp = m ? m[1].toLowerCase() : 'ansi_1252';
    const enc = /^ansi_(\d+)$/.exec(cp) ? (cp === 'ansi_932' ? 'shift_jis' : `cp${cp.slice(5)}`) : /^dos(\d+)$/.test(cp) ? `cp${cp.slice(3)}` : cp;
    const use = iconv.encodingExists(enc) ? enc : 'latin1';
    return { text: iconv.decode(buf, use), encoding: use };
  }
}

/** A line of the file as a reason quotes it: its text (shortened), or what it holds when that is not text. */
function quoteLine(line: string): string {
  return hasUnprintable(line) ? 'binary data (control characters), not text' : printable(line, 40);
}

export function readAsciiTags(text: string): { tags: Tags; warnings: string[] } {
  // Scans line by line without splitting the whole text into an array of lines.
  const codes: number[] = [];
  const values: Val[] = [];
  const warnings: string[] = [];
  let lenient = 0;
  let pos = 0;
  let lineNo = 0;
  const n = text.length;
  const nextLine = (): string | null => {
    if (pos >= n) return null;
    let i = pos;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) break;
      i++;
    }
    const line = text.slice(pos, i);
    if (i < n && text.charCodeAt(i) === 13 && text.charCodeAt(i + 1) === 10) i += 2;
    else i += 1;
    pos = i;
    lineNo++;
    return line;
  };
  for (;;) {
    const codeLine = nextLine();
    if (codeLine === null) break;
    const raw = codeLine.trim();
    if (!/^-?\d{1,4}$/.test(raw)) {
      if (raw === '' && /^\s*$/.test(text.slice(pos))) break;
      throw new ExtractionError(`malformed DXF: line ${lineNo} should hold a group code but holds ${quoteLine(raw)}`);
    }
    const v = nextLine();
    if (v === null) {
      warnings.push('the DXF ends in the middle of a group (odd number of lines)');
      break;
    }
    const code = parseInt(raw, 10);
    const kind = valueKind(code);
    if (kind === 'str' || kind === 'bin') values.push(v);
    else if (kind === 'bool') values.push(v.trim() !== '0');
    else {
      let num = Number(v.trim());
      if (!Number.isFinite(num)) {
        // Like AutoCAD (strtod), accept a number followed by junk, e.g. "256QSW".
        num = parseFloat(v.trim());
        if (Number.isFinite(num)) lenient++;
      }
      if (!Number.isFinite(num)) {
        throw new ExtractionError(`malformed DXF: line ${lineNo} should hold a number for group code ${code} but holds ${quoteLine(v.trim())}`);
      }
      values.push(num);
    }
    codes.push(code);
    if (code === 0 && v.trim() === 'EOF') break;
  }
  if (lenient) warnings.push(`${lenient} numeric values had trailing characters and were read up to them`);
  return { tags: { codes, values }, warnings };
}
