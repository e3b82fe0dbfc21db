// OCR of a page: PDFium renders it at 300 DPI (annotations on, RGBA byte order), Tesseract
// (WASM) recognises words with boxes and confidences; words are grouped into lines (from
// Tesseract's line flags) and lines into blocks in Tesseract's reading order.
import type { PdfDocument } from './document.js';
import { getTesseract, requireTesseractModel } from './tesseract-loader.js';
import type { Fragment } from './fragment.js';
import type { PageGeometry } from './textlayer.js';
import { regionBlocks, type Line, type RawBlock } from './layout.js';
import type { EngineLocations } from '../settings.js';
import { r2 } from './display-units.js';
import type { Provenance } from '../kit/provenance.js';
import { UNPLACED } from './provenance.js';

const OCR_DPI = 300;
/** Largest bitmap rendered for OCR (pixels); bigger pages are rendered at a lower DPI. */
const MAX_PIXELS = 60_000_000;

export interface OcrWord {
  text: string;
  bbox: [number, number, number, number];
  confidence: number;
  provenance: Provenance;
}
export interface OcrLine {
  text: string;
  bbox: [number, number, number, number];
  confidence: number;
  words: OcrWord[];
  provenance: Provenance;
}
export interface OcrResult {
  dpi: number;
  meanConfidence: number;
  lines: OcrLine[];
  fragments: Fragment[];
  blocks: RawBlock[];
  columns: number;
  charCount: number;
}

const FPDF_PAGEOBJ_IMAGE = 3;

/**
 * True when an image covers most of the page (a scan, possibly with a thin text layer).
 * Ocr mode asks this of every page before anything else, outside the try that turns a failed
 * page's OCR into a warning; so it is where a node without the model fails the whole job
 * (engine_unavailable, nothing charged) instead of completing it with empty pages.
 */
export function pageLooksScanned(doc: PdfDocument, page: number, g: PageGeometry, engines: EngineLocations): boolean {
  requireTesseractModel(engines);
  const { ex } = doc.p;
  const s = doc.scratch;
  const n = ex.FPDFPage_CountObjects(page);
  const area = Math.max(1, (g.box[2] - g.box[0]) * (g.box[3] - g.box[1]));
  for (let k = 0; k < n && k < 5000; k++) {
    const o = ex.FPDFPage_GetObject(page, k);
    if (!o || ex.FPDFPageObj_GetType(o) !== FPDF_PAGEOBJ_IMAGE) continue;
    if (!ex.FPDFPageObj_GetBounds(o, s.ptr, s.ptr + 4, s.ptr + 8, s.ptr + 12)) continue;
    const w = s.f32(2) - s.f32(0),
      h = s.f32(3) - s.f32(1);
    if (w * h >= area * 0.5) return true;
  }
  return false;
}

/** Why one page could not be read by OCR, in our own words (the job goes on without it). */
export class OcrPageError extends Error {}

export async function ocrPage(doc: PdfDocument, page: number, g: PageGeometry, engines: EngineLocations): Promise<OcrResult> {
  const { ex, M } = doc.p;
  let dpi = OCR_DPI;
  let wpx = Math.round((g.width * dpi) / 72),
    hpx = Math.round((g.height * dpi) / 72);
  if (wpx * hpx > MAX_PIXELS) {
    const f = Math.sqrt(MAX_PIXELS / (wpx * hpx));
    dpi = Math.floor(dpi * f);
    wpx = Math.round((g.width * dpi) / 72);
    hpx = Math.round((g.height * dpi) / 72);
  }
  if (wpx < 1 || hpx < 1) throw new OcrPageError('the page has no area to read');
  const engine = await getTesseract(engines);
  const bmp = ex.FPDFBitmap_Create(wpx, hpx, 1);
  if (!bmp) throw new OcrPageError(`no room for a ${wpx}×${hpx} image of the page`);
  let rgba: Uint8ClampedArray;
  try {
    ex.FPDFBitmap_FillRect(bmp, 0, 0, wpx, hpx, 0xffffffff);
    ex.FPDF_RenderPageBitmap(bmp, page, 0, 0, wpx, hpx, 0, 0x11);
    const stride = ex.FPDFBitmap_GetStride(bmp);
    const buf = ex.FPDFBitmap_GetBuffer(bmp);
    rgba = new Uint8ClampedArray(wpx * hpx * 4);
    const heap: Uint8Array = M.HEAPU8;
    if (stride === wpx * 4) rgba.set(heap.subarray(buf, buf + wpx * hpx * 4));
    else for (let y = 0; y < hpx; y++) rgba.set(heap.subarray(buf + y * stride, buf + y * stride + wpx * 4), y * wpx * 4);
  } finally {
    ex.FPDFBitmap_Destroy(bmp);
  }
  engine.setVariable('user_defined_dpi', String(dpi));
  engine.loadImage({ data: rgba, width: wpx, height: hpx });
  const items = engine.getTextBoxes('word');
  engine.clearImage();
  const k = 72 / dpi;
  const lines: OcrLine[] = [];
  let cur: OcrWord[] = [];
  const flush = () => {
    if (!cur.length) return;
    const bbox: [number, number, number, number] = [
      Math.min(...cur.map((w) => w.bbox[0])),
      Math.min(...cur.map((w) => w.bbox[1])),
      Math.max(...cur.map((w) => w.bbox[2])),
      Math.max(...cur.map((w) => w.bbox[3])),
    ];
    const confidence = cur.reduce((a, w) => a + w.confidence, 0) / cur.length;
    lines.push({ text: cur.map((w) => w.text).join(' '), bbox, confidence: r2(confidence), words: cur, provenance: UNPLACED });
    cur = [];
  };
  let confSum = 0,
    confN = 0,
    charCount = 0;
  for (const it of items) {
    const text = it.text.trim();
    if (it.flags & 1 /* StartOfLine */) flush();
    if (text) {
      const word: OcrWord = {
        text,
        bbox: [r2(it.rect.left * k), r2(it.rect.top * k), r2(it.rect.right * k), r2(it.rect.bottom * k)],
        confidence: r2(Math.max(0, Math.min(1, it.confidence))),
        provenance: UNPLACED,
      };
      cur.push(word);
      confSum += word.confidence;
      confN++;
      charCount += text.length;
    }
    if (it.flags & 2 /* EndOfLine */) flush();
  }
  flush();
  // Lines (in Tesseract's reading order) → blocks. Font size is estimated from line height.
  const asLines: (Line & { conf: number })[] = lines.map((l) => ({
    text: l.text,
    x0: l.bbox[0],
    y0: l.bbox[1],
    x1: l.bbox[2],
    y1: l.bbox[3],
    size: r2(Math.max(4, (l.bbox[3] - l.bbox[1]) * 0.8)),
    bold: false,
    italic: false,
    font: '',
    chars: l.text.replace(/\s/g, '').length,
    conf: l.confidence,
  }));
  // Normalise sizes of lines of near-equal height so size noise does not split paragraphs.
  const blocks = regionBlocksOcr(asLines);
  const fragments: Fragment[] = lines.map((l) => ({
    text: l.text,
    x0: l.bbox[0],
    y0: l.bbox[1],
    x1: l.bbox[2],
    y1: l.bbox[3],
    size: Math.max(4, (l.bbox[3] - l.bbox[1]) * 0.8),
    font: '',
    bold: false,
    italic: false,
    chars: l.text.length,
    invisible: false,
    bad: 0,
    boldChars: 0,
    italicChars: 0,
    mcid: -1,
  }));
  // One region (Tesseract's reading order): every block has column null.
  return { dpi, meanConfidence: confN ? confSum / confN : 0, lines, fragments, blocks, columns: lines.length ? 1 : 0, charCount };
}

function regionBlocksOcr(lines: (Line & { conf: number })[]): RawBlock[] {
  if (!lines.length) return [];
  const heights = lines.map((l) => l.y1 - l.y0).sort((a, b) => a - b);
  const med = heights[heights.length >> 1];
  for (const l of lines) if (Math.abs(l.y1 - l.y0 - med) < med * 0.35) l.size = r2(med * 0.8);
  const blocks = regionBlocks(lines, null);
  for (const b of blocks) {
    const ls = b.lines! as (Line & { conf: number })[];
    b.confidence = ls.reduce((a, l) => a + l.conf, 0) / ls.length;
  }
  return blocks;
}
