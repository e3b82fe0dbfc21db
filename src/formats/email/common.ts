// Pieces shared by the EML, MBOX, MSG and PST readers: hashing, body text, attachment text
// extraction, header parsing, dates, counts.
import { createHash } from 'node:crypto';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { compile } from 'html-to-text';
import libmime from 'libmime';
import { printable } from '../kit/reasons.js';
import type { EmailAddressT, EmailAttachmentT, EmailMessageT } from './schema.js';

/** Nested messages deeper than this are listed but not opened. */
export const MAX_NESTING = 8;
/** Largest attachment whose text is extracted, and the most text kept per attachment. */
export const MAX_EXTRACT_BYTES = 16 * 1024 * 1024;
export const MAX_ATTACHMENT_TEXT = 1024 * 1024;
/** Largest HTML body converted to text. */
const MAX_HTML_FOR_TEXT = 8 * 1024 * 1024;
const MAX_HEADERS = 1000;

/** An attachment as a warning names it: its file name, else its position. */
export function attachmentLabel(fileName: string | null | undefined, index: number): string {
  return fileName ? printable(fileName) : `${index + 1} (no file name)`;
}

export function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** html-to-text compiled once (compiling its selectors per call costs more than converting). */
let converter: ((html: string) => string) | null = null;

export function htmlToText(html: string | null | undefined): string | null {
  if (!html) return null;
  const src = html.length > MAX_HTML_FOR_TEXT ? html.slice(0, MAX_HTML_FOR_TEXT) : html;
  converter ??= compile({
    wordwrap: false,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { ignoreHref: true } },
    ],
  });
  try {
    return converter(src).trim();
  } catch {
    return src
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  }
}

/** Decodes bytes in a declared charset; UTF-8 when valid, else a detected one. */
export function decodeText(buf: Uint8Array, charset?: string | null): string {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (charset) {
    const cs = normalizeCharset(charset);
    if (cs && iconv.encodingExists(cs)) return iconv.decode(b, cs);
  }
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return b.subarray(3).toString('utf8');
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return iconv.decode(b.subarray(2), 'utf-16le');
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return iconv.decode(b.subarray(2), 'utf-16be');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    const guess = chardet.detect(b.subarray(0, 64 * 1024));
    return iconv.decode(b, guess && iconv.encodingExists(guess) ? guess : 'windows-1252');
  }
}

/** Charset labels seen in mail that iconv-lite spells differently. */
export function normalizeCharset(cs: string): string | null {
  const c = cs
    .trim()
    .toLowerCase()
    .replace(/^["']|["']$/g, '');
  if (!c) return null;
  if (c === 'ks_c_5601-1987' || c === 'ks_c_5601' || c === 'ksc5601' || c === 'euc-kr') return 'cp949';
  if (c === 'x-sjis' || c === 'shift-jis' || c === 'sjis') return 'shift_jis';
  if (c === 'utf8') return 'utf-8';
  if (c === 'gb2312' || c === 'x-gbk') return 'gbk';
  if (c === 'big5-hkscs') return 'big5hkscs';
  return c;
}

/** Windows code page number → iconv-lite encoding for ANSI (8-bit) MAPI strings. */
export function codePageEncoding(cp: number | undefined | null): string | null {
  if (!cp) return null;
  const map: Record<number, string> = {
    20127: 'windows-1252',
    28591: 'windows-1252',
    1252: 'windows-1252',
    65001: 'utf-8',
    65000: 'utf-7',
    50220: 'cp932',
    50221: 'cp932',
    50222: 'cp932',
    51932: 'cp932',
    932: 'cp932',
    936: 'gbk',
    52936: 'gbk',
    54936: 'gb18030',
    20936: 'gbk',
    950: 'cp950',
    51950: 'cp950',
    949: 'cp949',
    51949: 'cp949',
    50225: 'cp949',
    874: 'windows-874',
    20866: 'koi8-r',
    21866: 'koi8-u',
    28592: 'windows-1250',
    28595: 'iso-8859-5',
    28597: 'iso-8859-7',
    28599: 'windows-1254',
    28605: 'iso-8859-15',
  };
  if (map[cp]) return map[cp];
  if (cp >= 1250 && cp <= 1258) return `windows-${cp}`;
  if (iconv.encodingExists(`cp${cp}`)) return `cp${cp}`;
  return null;
}

/** Service formats an attachment could be, for the note on what was not extracted here. */
const SERVICE_FORMATS: [RegExp, string][] = [
  [/^application\/pdf$|\.pdf$/i, 'PDF'],
  [/wordprocessingml|msword|\.docx?$|\.docm$|\.rtf$|application\/rtf|opendocument\.text|\.odt$/i, 'Office document'],
  [/spreadsheetml|ms-excel|\.xlsx?$|\.xlsm$|opendocument\.spreadsheet|\.ods$/i, 'spreadsheet'],
  [/presentationml|ms-powerpoint|\.pptx?$|opendocument\.presentation|\.odp$/i, 'presentation'],
  [/\.parquet$/i, 'Parquet'],
  [/\.(dwg|dxf)$|acad|dxf/i, 'CAD drawing'],
  [/\.(zip|shp|gpkg|geojson|kml|kmz|gml|gpx|fgb)$|geo\+json|kml/i, 'GIS dataset'],
  [/\.sql$|\/sql$/i, 'SQL script'],
  [/ms-outlook|\.msg$/i, 'Outlook message'],
];

function serviceFormat(contentType: string | null, fileName: string | null): string | null {
  for (const [re, name] of SERVICE_FORMATS) if (re.test(contentType ?? '') || re.test(fileName ?? '')) return name;
  return null;
}

function cap(text: string): { text: string; textTruncated?: boolean } {
  return text.length > MAX_ATTACHMENT_TEXT ? { text: text.slice(0, MAX_ATTACHMENT_TEXT), textTruncated: true } : { text };
}

/** Text of an attachment when it is cheap: text/*, HTML, CSV. Others get a note. */
export function extractAttachment(
  contentType: string | null,
  fileName: string | null,
  content: Uint8Array | null,
  charset?: string | null,
): Pick<EmailAttachmentT, 'extraction' | 'text' | 'textTruncated' | 'note' | 'missed'> {
  const ct = (contentType ?? '').toLowerCase();
  const name = (fileName ?? '').toLowerCase();
  if (!content) return { extraction: 'none', missed: 'failed', note: 'attachment content not available' };
  const isHtml = ct === 'text/html' || ct === 'application/xhtml+xml' || /\.x?html?$/.test(name);
  const isCsv = ct === 'text/csv' || ct === 'text/tab-separated-values' || /\.(csv|tsv)$/.test(name);
  const isText = ct.startsWith('text/') || /\.(txt|log|md|json|xml|ics|vcf|eml)$/.test(name);
  const fmt = serviceFormat(contentType, fileName);
  if (isHtml || isCsv || (isText && !fmt)) {
    if (content.byteLength > MAX_EXTRACT_BYTES)
      return { extraction: 'none', missed: 'skipped', note: `text not extracted: larger than ${MAX_EXTRACT_BYTES} bytes` };
    const decoded = decodeText(content, charset);
    if (isHtml) return { extraction: 'html', ...cap(htmlToText(decoded) ?? '') };
    return { extraction: isCsv ? 'csv' : 'text', ...cap(decoded) };
  }
  if (fmt)
    return { extraction: 'none', missed: 'skipped', note: `${fmt}: a format the service parses when uploaded on its own; not extracted inside a message` };
  return { extraction: 'none', missed: 'skipped', note: 'binary attachment: content not extracted' };
}

/** Unfolded header lines "Name: value" → [{name, value}] with encoded-words decoded. */
export function parseHeaderBlock(block: string | null | undefined): { name: string; value: string }[] {
  if (!block) return [];
  const out: { name: string; value: string }[] = [];
  const unfolded = block.replace(/\r?\n(?=[ \t])/g, '');
  for (const line of unfolded.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    out.push({ name: line.slice(0, i).trim(), value: decodeWords(line.slice(i + 1).trim()) });
    if (out.length >= MAX_HEADERS) break;
  }
  return out;
}

export function decodeWords(v: string): string {
  try {
    return libmime.decodeWords(v);
  } catch {
    return v;
  }
}

export function headerValue(headers: { name: string; value: string }[], name: string): string | null {
  const n = name.toLowerCase();
  const h = headers.find((x) => x.name.toLowerCase() === n);
  return h ? h.value : null;
}

/** ISO 8601 from a Date or a header string; null when absent or unparseable. */
export function isoDate(v: Date | string | null | undefined): string | null {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(v);
  const t = d.getTime();
  if (!Number.isFinite(t)) {
    if (typeof v === 'string') {
      // "Mon, 01 Jan 2001 10:00:00 -0459" and other odd zones: parse without the zone, apply it.
      const m = /^(.*\d{1,2}:\d{2}(?::\d{2})?)\s*([+-])(\d{2})(\d{2})\b/.exec(v.replace(/^\w{3},\s*/, ''));
      if (m) {
        const base = Date.parse(`${m[1]} UTC`);
        if (Number.isFinite(base)) {
          const off = (Number(m[3]) * 60 + Number(m[4])) * 60000 * (m[2] === '+' ? 1 : -1);
          return new Date(base - off).toISOString();
        }
      }
    }
    return null;
  }
  if (t < -62135596800000 || t > 253402300799999) return null;
  return d.toISOString();
}

/** Message ids from In-Reply-To / References ("<a@b> <c@d>"). */
export function messageIds(v: string | string[] | null | undefined): string[] {
  if (!v) return [];
  const s = Array.isArray(v) ? v.join(' ') : v;
  const ids = s.match(/<[^<>\s]+>/g);
  if (ids) return ids;
  return s.split(/\s+/).filter(Boolean);
}

export function address(name: string | null | undefined, addr: string | null | undefined): EmailAddressT {
  return { name: name?.trim() || null, address: addr?.trim() || null };
}

/** Fills the attachment and nested-message counts of a message from its attachments. */
export function countTree(m: EmailMessageT): EmailMessageT {
  let total = 0;
  let n = 0;
  for (const att of m.attachments) {
    total++;
    if (att.extraction === 'message') {
      n++;
      if (att.message) {
        total += att.message.totalAttachmentCount;
        n += att.message.nestedMessageCount;
      }
    }
  }
  m.attachmentCount = m.attachments.length;
  m.totalAttachmentCount = total;
  m.nestedMessageCount = n;
  return m;
}

/** Plain text of an RTF body (control words dropped, \'hh and \uN decoded). */
export function rtfToText(rtf: string | null | undefined, codepage = 'windows-1252'): string | null {
  if (!rtf) return null;
  const skipDest =
    /^(fonttbl|colortbl|stylesheet|info|pict|object|header|footer|themedata|colorschememapping|latentstyles|datastore|xmlnstbl|listtable|listoverridetable|rsidtbl|generator|mmathPr|filetbl|revtbl)$/;
  let out = '';
  let i = 0;
  const stack: { skip: boolean; uc: number }[] = [];
  let skip = false;
  let uc = 1;
  let pendingSkip = 0;
  const bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length) {
      if (!skip) out += iconv.decode(Buffer.from(bytes), codepage);
      bytes.length = 0;
    }
  };
  while (i < rtf.length) {
    const c = rtf[i];
    if (c === '{') {
      flush();
      stack.push({ skip, uc });
      i++;
    } else if (c === '}') {
      flush();
      const s = stack.pop();
      if (s) {
        skip = s.skip;
        uc = s.uc;
      }
      i++;
    } else if (c === '\\') {
      const m = /^\\([a-zA-Z]+)(-?\d+)? ?|^\\'([0-9a-fA-F]{2})|^\\([^a-zA-Z])/.exec(rtf.slice(i, i + 40));
      if (!m) {
        i++;
        continue;
      }
      i += m[0].length;
      if (m[3]) {
        if (pendingSkip > 0) pendingSkip--;
        else bytes.push(parseInt(m[3], 16));
        continue;
      }
      flush();
      if (m[4]) {
        if (m[4] === '*') skip = true;
        else if (m[4] === '~') out += skip ? '' : '\u00a0';
        else if (m[4] === '\\' || m[4] === '{' || m[4] === '}') out += skip ? '' : m[4];
        else if (m[4] === '\n' || m[4] === '\r') out += skip ? '' : '\n';
        continue;
      }
      const word = m[1];
      const arg = m[2] !== undefined ? Number(m[2]) : null;
      if (skipDest.test(word)) skip = true;
      else if (word === 'uc' && arg !== null) uc = arg;
      else if (word === 'u' && arg !== null) {
        if (!skip) out += String.fromCharCode(arg < 0 ? arg + 65536 : arg);
        pendingSkip = uc;
      } else if (!skip) {
        if (word === 'par' || word === 'line' || word === 'sect') out += '\n';
        else if (word === 'tab') out += '\t';
        else if (word === 'cell') out += '\t';
        else if (word === 'row') out += '\n';
      }
    } else if (c === '\r' || c === '\n') {
      i++;
    } else {
      if (pendingSkip > 0) {
        pendingSkip--;
        i++;
        continue;
      }
      flush();
      if (!skip) out += c;
      i++;
    }
  }
  flush();
  return out.replace(/\n{3,}/g, '\n\n').trim();
}

const EXT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  htm: 'text/html',
  html: 'text/html',
  csv: 'text/csv',
  xml: 'application/xml',
  json: 'application/json',
  ics: 'text/calendar',
  vcf: 'text/vcard',
  eml: 'message/rfc822',
  msg: 'application/vnd.ms-outlook',
  doc: 'application/msword',
  dot: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  rtf: 'application/rtf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  zip: 'application/zip',
  gz: 'application/gzip',
  '7z': 'application/x-7z-compressed',
  sql: 'application/sql',
  parquet: 'application/vnd.apache.parquet',
  dwg: 'image/vnd.dwg',
  dxf: 'image/vnd.dxf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  bin: 'application/octet-stream',
};

/** Content type from a file name, for containers (MSG, PST) that often store none. */
export function guessContentType(fileName: string | null | undefined): string | null {
  const m = fileName ? /\.([A-Za-z0-9]+)$/.exec(fileName) : null;
  return m ? (EXT_TYPES[m[1].toLowerCase()] ?? null) : null;
}
