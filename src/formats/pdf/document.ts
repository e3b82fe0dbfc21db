// Opening a PDF with PDFium from a file on disk without reading it whole into memory
// (FPDF_LoadCustomDocument with a read callback), mapping PDFium's load errors to
// ExtractionErrors, and reading document-level metadata.
import fs from 'node:fs';
import { ExtractionError } from '../kit/types.js';
import type { Pdfium } from './pdfium-loader.js';

const FPDF_ERR = [
  'success',
  'unknown error',
  'file not found or could not be opened',
  'not a PDF or corrupted',
  'password required or incorrect',
  'unsupported security scheme',
  'page not found or content error',
];

export interface PdfMetadata {
  title: string | null;
  author: string | null;
  subject: string | null;
  keywords: string | null;
  creator: string | null;
  producer: string | null;
  creationDate: string | null;
  modificationDate: string | null;
  pdfVersion: string | null;
  pageCount: number;
  encrypted: boolean;
  encryption: { securityHandlerRevision: number } | null;
  tagged: boolean;
  language: string | null;
  hasForm: boolean;
  repaired: boolean;
}

/** Scratch memory in the WASM heap, reused across calls (one per PdfDocument). */
export class Scratch {
  readonly ptr: number;
  constructor(
    private readonly p: Pdfium,
    readonly bytes = 256,
  ) {
    this.ptr = p.ex.malloc(bytes);
  }
  f64(i: number): number {
    return this.p.M.HEAPF64[(this.ptr >> 3) + i];
  }
  f32(i: number): number {
    return this.p.M.HEAPF32[(this.ptr >> 2) + i];
  }
  i32(i: number): number {
    return this.p.M.HEAP32[(this.ptr >> 2) + i];
  }
  free(): void {
    this.p.ex.free(this.ptr);
  }
}

/**
 * PDFium reads the file in many small pieces (objects, xref sections: mostly < 4 KiB): serve
 * them from a few 64 KiB blocks read with one system call each. Large reads go straight to
 * the WASM heap. Memory stays bounded (4 blocks per open document).
 */
class ReadCache {
  private static readonly BLOCK = 1 << 16;
  private static readonly SLOTS = 4;
  private readonly bufs: Buffer[] = [];
  private readonly starts: number[] = [];
  private readonly lens: number[] = [];
  private next = 0;
  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {}

  /** Copies file bytes [pos, pos+len) to heap[dst…]; false when the file has fewer bytes. */
  read(heap: Uint8Array, dst: number, len: number, pos: number): boolean {
    if (pos + len > this.size) return false;
    if (len >= ReadCache.BLOCK >> 1) return fs.readSync(this.fd, heap, dst, len, pos) === len;
    let done = 0;
    while (done < len) {
      const p = pos + done;
      let k = 0;
      while (k < this.starts.length && !(p >= this.starts[k] && p < this.starts[k] + this.lens[k])) k++;
      if (k === this.starts.length) k = this.load(p - (p % ReadCache.BLOCK));
      if (p >= this.starts[k] + this.lens[k]) return false;
      const from = p - this.starts[k];
      const n = Math.min(len - done, this.lens[k] - from);
      heap.set(this.bufs[k].subarray(from, from + n), dst + done);
      done += n;
    }
    return true;
  }

  private load(start: number): number {
    let k: number;
    if (this.bufs.length < ReadCache.SLOTS) {
      k = this.bufs.length;
      this.bufs.push(Buffer.allocUnsafe(ReadCache.BLOCK));
      this.starts.push(-1);
      this.lens.push(0);
    } else {
      k = this.next;
      this.next = (this.next + 1) % ReadCache.SLOTS;
    }
    this.starts[k] = start;
    this.lens[k] = 0;
    this.lens[k] = fs.readSync(this.fd, this.bufs[k], 0, Math.min(ReadCache.BLOCK, this.size - start), start);
    return k;
  }
}

const STR_BUF = 4096;

/**
 * PDFium's file-read callback, one per PDFium instance: making a function callable from WASM
 * compiles a small module (≈ 0.2 ms, a tenth of a one-page document's time), so documents
 * share it and are told apart by FPDF_FILEACCESS.m_Param, a key into `readers`.
 */
interface FileReader {
  cb: number;
  readers: Map<number, ReadCache>;
  nextKey: number;
}
const fileReaders = new WeakMap<Pdfium, FileReader>();

function fileReaderFor(p: Pdfium): FileReader {
  let r = fileReaders.get(p);
  if (r) return r;
  const M = p.M;
  const readers = new Map<number, ReadCache>();
  const cb = M.addFunction((param: number, pos: number, buf: number, len: number) => {
    try {
      return readers.get(param)?.read(M.HEAPU8, buf, len, pos >>> 0) ? 1 : 0;
    } catch {
      return 0;
    }
  }, 'iiiii');
  fileReaders.set(p, (r = { cb, readers, nextKey: 1 }));
  return r;
}

export class PdfDocument {
  readonly handle: number;
  readonly pageCount: number;
  /** The document has a structure tree (tagged PDF). */
  readonly tagged: boolean;
  readonly scratch: Scratch;
  /** Reused buffer for strings read from PDFium (utf16). */
  private readonly strBuf: number;
  private fd: number;
  /** This document's key in its FileReader. */
  private readonly readerKey: number;
  private readonly access: number;
  private closed = false;

  private constructor(
    readonly p: Pdfium,
    fd: number,
    handle: number,
    readerKey: number,
    access: number,
  ) {
    this.fd = fd;
    this.handle = handle;
    this.readerKey = readerKey;
    this.access = access;
    this.pageCount = p.ex.FPDF_GetPageCount(handle);
    this.tagged = !!p.ex.FPDFCatalog_IsTagged(handle);
    this.scratch = new Scratch(p);
    this.strBuf = p.ex.malloc(STR_BUF);
  }

  /** Opens `filePath`; `password` for encrypted files. Throws ExtractionError on failure. */
  static open(p: Pdfium, filePath: string, password = ''): PdfDocument {
    const fd = fs.openSync(filePath, 'r');
    let size: number;
    try {
      size = fs.fstatSync(fd).size;
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    if (size === 0) {
      fs.closeSync(fd);
      throw new ExtractionError('empty file: not a PDF', 'extraction_failed');
    }
    if (size > 0xffffffff) {
      fs.closeSync(fd);
      throw new ExtractionError('PDF larger than 4 GiB is not supported', 'extraction_failed');
    }
    // Header check: PDFium accepts a %PDF- marker within the first 1 KiB.
    const head = Buffer.alloc(Math.min(1024, size));
    fs.readSync(fd, head, 0, head.length, 0);
    if (head.indexOf('%PDF-') < 0) {
      fs.closeSync(fd);
      throw new ExtractionError('not a PDF file (no %PDF- header)', 'extraction_failed');
    }
    const M = p.M;
    const reader = fileReaderFor(p);
    const key = reader.nextKey;
    reader.nextKey = key >= 0x7fffffff ? 1 : key + 1;
    reader.readers.set(key, new ReadCache(fd, size));
    const access = p.ex.malloc(12);
    M.HEAPU32[access >> 2] = size;
    M.HEAPU32[(access >> 2) + 1] = reader.cb;
    M.HEAPU32[(access >> 2) + 2] = key;
    const handle = p.api.FPDF_LoadCustomDocument(access, password);
    if (!handle) {
      const err = p.api.FPDF_GetLastError();
      reader.readers.delete(key);
      p.ex.free(access);
      fs.closeSync(fd);
      if (err === 4) throw new ExtractionError(password ? 'PDF password is incorrect' : 'PDF is encrypted and needs a password to open', 'encrypted_document');
      if (err === 5) throw new ExtractionError('PDF uses an unsupported security handler', 'encrypted_document');
      throw new ExtractionError(
        `PDFium could not open the document: ${FPDF_ERR[err] ?? `error ${err}`} (file may be truncated or damaged)`,
        'extraction_failed',
      );
    }
    return new PdfDocument(p, fd, handle, key, access);
  }

  /** Reads a UTF-16LE string written by a PDFium "get text into buffer" function (up to its NUL terminator: never contains NUL). */
  utf16(call: (buf: number, len: number) => number, maxBytes = 1 << 16): string {
    // One call when the text fits the document's string buffer (PDFium writes only when the
    // buffer is large enough, and returns the length either way); else size it, as before.
    const sb = this.strBuf;
    const need = call(sb, STR_BUF - 2);
    if (!need || need <= 2) return '';
    if (need <= STR_BUF - 2 && need <= maxBytes) {
      this.p.M.HEAPU8[sb + need] = 0;
      this.p.M.HEAPU8[sb + need + 1] = 0;
      return this.p.M.UTF16ToString(sb);
    }
    const len = Math.min(need, maxBytes);
    const buf = this.p.ex.malloc(len + 2);
    try {
      call(buf, len);
      this.p.M.HEAPU8[buf + len] = 0;
      this.p.M.HEAPU8[buf + len + 1] = 0;
      return this.p.M.UTF16ToString(buf);
    } finally {
      this.p.ex.free(buf);
    }
  }

  metaText(tag: string): string | null {
    const api = this.p.api;
    const v = this.utf16((b, l) => api.FPDF_GetMetaText(this.handle, tag, b, l)).trim();
    return v || null;
  }

  metadata(): PdfMetadata {
    const { api, ex } = this.p;
    const s = this.scratch;
    const version = api.FPDF_GetFileVersion(this.handle, s.ptr) ? s.i32(0) : 0;
    const rev = api.FPDF_GetSecurityHandlerRevision(this.handle);
    const lang = this.utf16((b, l) => api.EPDFCatalog_GetLanguage(this.handle, b, l)).trim();
    return {
      title: this.metaText('Title'),
      author: this.metaText('Author'),
      subject: this.metaText('Subject'),
      keywords: this.metaText('Keywords'),
      creator: this.metaText('Creator'),
      producer: this.metaText('Producer'),
      creationDate: pdfDate(this.metaText('CreationDate')),
      modificationDate: pdfDate(this.metaText('ModDate')),
      pdfVersion: version ? `${Math.floor(version / 10)}.${version % 10}` : null,
      pageCount: this.pageCount,
      encrypted: rev >= 0,
      encryption: rev >= 0 ? { securityHandlerRevision: rev } : null,
      tagged: this.tagged,
      language: lang || null,
      hasForm: ex.FPDF_GetFormType(this.handle) > 0,
      repaired: !api.FPDF_DocumentHasValidCrossReferenceTable(this.handle),
    };
  }

  private closers: (() => void)[] = [];

  /** Runs `fn` before the document is closed (e.g. to release a form environment). */
  onClose(fn: () => void): void {
    this.closers.push(fn);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.closers.splice(0)) {
      try {
        fn();
      } catch {
        // best effort
      }
    }
    this.scratch.free();
    this.p.ex.free(this.strBuf);
    this.p.ex.FPDF_CloseDocument(this.handle);
    fileReaderFor(this.p).readers.delete(this.readerKey);
    this.p.ex.free(this.access);
    fs.closeSync(this.fd);
  }
}

/** PDF date string (D:YYYYMMDDHHmmSSOHH'mm') → ISO 8601, or the raw string if it does not parse. */
function pdfDate(raw: string | null): string | null {
  if (!raw) return null;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(Z|[+-]\d{2}'?\d{0,2}'?)?/.exec(raw.trim());
  if (!m) return raw;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', se = '00', tz] = m;
  let zone = 'Z';
  if (tz && tz !== 'Z') {
    const t = /([+-])(\d{2})'?(\d{0,2})/.exec(tz);
    if (t) zone = `${t[1]}${t[2]}:${(t[3] || '00').padEnd(2, '0')}`;
  }
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${se}${zone}`;
  return Number.isNaN(Date.parse(iso)) ? raw : iso;
}
