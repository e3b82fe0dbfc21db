// PDF family parser (PDFium in WASM; Tesseract for OCR). Pages are extracted one at a time
// and written to the artifact as soon as a small look-ahead window allows repeated
// headers/footers to be recognised, so memory stays bounded whatever the page count.
//   SingleColumn: blocks top to bottom across the full page width.
//   MultiColumn:  columns found per page from whitespace gutters, read column by column.
//   Ocr:          pages rendered at 300 DPI and recognised, unless the text layer is usable.
//   Advanced:     MultiColumn + tables, structure tree, form fields, annotations, links, images.
import type { JsonWriter } from '../kit/json-writer.js';
import { buildChunks, type ChunkSourceBlock } from '../chunks.js';
import { unreadableBecause } from '../kit/reasons.js';
import { ExtractionError, type FormatParser, type ParseOutcome } from '../kit/types.js';
import { PdfDocument, type PdfMetadata } from './document.js';
import { getPdfium, resetPdfium } from './pdfium-loader.js';
import { frameToDisplay, pageGeometry, readTextLayer, type PageGeometry, type TextLayer } from './textlayer.js';
import { columnRegions, fromVertical, regionBlocks, regionLines, singleRegion, toVertical, type RawBlock } from './layout.js';
import type { PdfBlockT, PdfPageT, PdfTableT } from './schema.js';
import { readOutline, readPageLabel } from './outline.js';
import { OcrPageError, ocrPage, pageLooksScanned, type OcrResult } from './ocr.js';
import type { EngineLocations } from '../settings.js';
import { advancedPageExtras, structTypes, type AdvancedExtras } from './advanced.js';
import { dropRepeatedHeader } from './tables.js';
import { r2 } from './display-units.js';
import { pageTreeWarning, readPageTree } from './page-tree.js';
import { UnitsHeldAhead } from './reservation.js';
import { placeOf, placePage } from './provenance.js';
import { CompletenessCounter } from '../kit/completeness.js';

export { PdfContent, type PdfContentT } from './schema.js';

type Mode = 'SingleColumn' | 'MultiColumn' | 'Ocr' | 'Advanced';

/** Pages on each side of a page compared when looking for repeated headers/footers. */
const WINDOW = 4;
const MARGIN_ZONE = 0.1;

interface PageWork {
  number: number;
  geometry: PageGeometry;
  label: string | null;
  blocks: RawBlock[];
  columns: number;
  textSource: 'text' | 'ocr' | 'none';
  ocr: OcrResult | null;
  extras: AdvancedExtras | null;
  /** Signatures of margin candidates: block index → "top|sig" / "bottom|sig". */
  marginSigs: Map<number, string>;
  charCount: number;
  badChars: number;
  /** Why the page could not be loaded (it is empty in the result), or null. */
  error: string | null;
  /** Why OCR could not read the page (Ocr mode), or null. */
  ocrFailure: string | null;
  structTypes?: Map<number, string>;
}

function signature(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

const PAGE_NUMBER = /^(?:page\s*)?(?:#|[ivxlcdm]+)(?:\s*(?:of|\/)\s*#)?$|^[-–—]\s*#\s*[-–—]$/i;

/** Candidates for running headers/footers: up to two blocks in the top and bottom margin zones. */
function marginCandidates(blocks: RawBlock[], g: PageGeometry): Map<number, string> {
  const out = new Map<number, string>();
  const order = blocks.map((b, i) => ({ b, i }));
  const top = order
    .filter(({ b }) => b.y1 <= g.height * MARGIN_ZONE + 2 && b.text.length <= 200)
    .sort((a, c) => a.b.y0 - c.b.y0)
    .slice(0, 3);
  const bottom = order
    .filter(({ b }) => b.y0 >= g.height * (1 - MARGIN_ZONE) - 2 && b.text.length <= 200)
    .sort((a, c) => c.b.y1 - a.b.y1)
    .slice(0, 3);
  for (const { b, i } of top) out.set(i, 'top|' + signature(b.text));
  for (const { b, i } of bottom) if (!out.has(i)) out.set(i, 'bottom|' + signature(b.text));
  return out;
}

class SizeStats {
  private w = new Map<number, number>();
  private boldW = 0;
  private total = 0;
  add(blocks: RawBlock[]): void {
    for (const b of blocks) {
      const s = Math.round(b.size * 2) / 2;
      this.w.set(s, (this.w.get(s) ?? 0) + b.chars);
      if (b.bold) this.boldW += b.chars;
      this.total += b.chars;
    }
  }
  /** Body text size: the size carrying most characters. */
  get body(): number {
    let best = 0,
      bw = -1;
    for (const [s, c] of this.w) {
      if (c > bw) {
        best = s;
        bw = c;
      }
    }
    return best || 10;
  }
  get bodyIsBold(): boolean {
    return this.total > 0 && this.boldW * 2 > this.total;
  }
}

function headingLevel(b: RawBlock, stats: SizeStats): number | null {
  const t = b.text;
  if (b.listMarker && !/^\(?[0-9a-zA-Z]/.test(b.listMarker)) return null; // bullets are list items
  if (t.length > 200 || b.lineCount > 3 || !/\p{L}{2}/u.test(t)) return null;
  const body = stats.body;
  const ratio = b.size / body;
  if (ratio >= 1.15 && b.chars >= 2) {
    if (ratio >= 1.9) return 1;
    if (ratio >= 1.45) return 2;
    return 3;
  }
  if (b.bold && !stats.bodyIsBold && ratio >= 0.95 && t.length <= 120 && b.lineCount <= 2 && !/[.,;]$/.test(t)) return 4;
  return null;
}

/** Document Units for PDFs are pages. */
export const parsePdf: FormatParser = async (input, w: JsonWriter): Promise<ParseOutcome> => {
  try {
    return await parse(input, w);
  } catch (e) {
    if (e instanceof ExtractionError) throw e;
    // A trap inside PDFium/Tesseract (RuntimeError: unreachable, out of bounds, OOM): the
    // document is the cause; the instance is replaced for the next one.
    if (isEngineTrap(e)) {
      resetPdfium();
      throw new ExtractionError('The PDF engine failed on this document: its content is damaged or malformed.', 'extraction_failed', false, { cause: e });
    }
    throw e;
  }
};

/** A trap inside a WASM engine: the instance cannot be trusted afterwards, so the job stops. */
function isEngineTrap(e: unknown): boolean {
  return (e as Error)?.name === 'RuntimeError' || /Aborted|memory access out of bounds|unreachable/.test(String((e as Error)?.message));
}

async function parse(input: Parameters<FormatParser>[0], w: JsonWriter): Promise<ParseOutcome> {
  const mode: Mode = (input.options.pdfMode as Mode | undefined) ?? 'SingleColumn';
  const pdfium = await getPdfium(input.settings.pdf.optimizedPdfium);
  const doc = PdfDocument.open(pdfium, input.filePath);
  const warnings: string[] = [];
  const chunkBlocks: ChunkSourceBlock[] = [];
  const within = input.within;
  // Pages always; tables in the mode that looks for them.
  const completeness = new CompletenessCounter().kind('pages');
  if (mode === 'Advanced') completeness.kind('tables');
  try {
    const meta: PdfMetadata = doc.metadata();
    if (meta.repaired) warnings.push('the PDF cross-reference table is damaged: PDFium repaired the file while opening it (some content may be missing)');
    // One page per page object: a tree that names one page 30,000 times holds one page.
    const tree = readPageTree(doc);
    const n = tree.pages.length;
    if (n <= 0) throw new ExtractionError('PDF has no pages (damaged page tree)', 'extraction_failed');
    const treeWarning = pageTreeWarning(tree);
    if (treeWarning) warnings.push(treeWarning);
    // Held against the quota while the pages are read: a refusal stops the parse at the next page.
    const held = new UnitsHeldAhead(input.units, n);
    w.beginObject().field('mode', mode).field('pageCount', n).key('pages').beginArray();

    const stats = new SizeStats();
    const sigs: Map<number, string>[] = [];
    const pending: PageWork[] = [];
    const emptyPages: number[] = [];
    const garbagePages: number[] = [];
    const failedPages: number[] = [];
    const ocrPages: number[] = [];
    let prevTable: { table: PdfTableT; head: PdfTableT; page: number; height: number } | null = null;

    const emit = async (pw: PageWork) => {
      const i = pw.number - 1;
      // Repeated headers/footers: same signature in the same zone on a nearby page, or a bare page number.
      const marks = new Map<number, 'header' | 'footer'>();
      for (const [bi, sig] of pw.marginSigs) {
        const [zone, text] = [sig.slice(0, sig.indexOf('|')), sig.slice(sig.indexOf('|') + 1)];
        let repeated = PAGE_NUMBER.test(text) && text.length <= 16;
        for (let j = Math.max(0, i - WINDOW); !repeated && j <= Math.min(sigs.length - 1, i + WINDOW); j++) {
          if (j === i || !sigs[j]) continue;
          for (const s of sigs[j].values()) if (s === sig) repeated = true;
        }
        if (repeated && text.length > 0) marks.set(bi, zone === 'top' ? 'header' : 'footer');
      }
      const blocks: PdfBlockT[] = pw.blocks.map((b, bi) => {
        const id = `p${pw.number}.b${bi}`;
        const mark = marks.get(bi);
        const tagLevel = b.structType && /^H([1-6])$/.exec(b.structType);
        const level = mark ? null : tagLevel ? Number(tagLevel[1]) : b.structType === 'P' || b.structType === 'LI' ? null : headingLevel(b, stats);
        const kind: PdfBlockT['kind'] = mark ?? (level ? 'heading' : b.listMarker || b.structType === 'LI' ? 'list' : 'paragraph');
        const bbox: PdfBlockT['bbox'] = [r2(b.x0), r2(b.y0), r2(b.x1), r2(b.y1)];
        const out: PdfBlockT = {
          id,
          kind,
          text: b.text,
          bbox,
          order: bi,
          column: b.column,
          fontSize: r2(b.size),
          font: b.font,
          bold: b.bold,
          italic: b.italic,
          lineCount: b.lineCount,
          provenance: placeOf(within, pw.number, bbox),
        };
        if (level) out.level = level;
        if (kind === 'list' && b.listMarker) out.listMarker = b.listMarker;
        if (pw.textSource === 'ocr') {
          out.source = 'ocr';
          if (b.confidence !== undefined) out.confidence = r2(b.confidence);
        }
        if (b.structType) out.structType = b.structType;
        if (b.words) out.words = b.words.map((w) => ({ text: w.text, bbox: [r2(w.x0), r2(w.y0), r2(w.x1), r2(w.y1)] }));
        if (input.options.chunkHints && kind !== 'header' && kind !== 'footer') {
          chunkBlocks.push({
            ref: id,
            text: b.text,
            kind: kind === 'heading' ? 'heading' : kind === 'list' ? 'list' : 'paragraph',
            level: level ?? undefined,
            page: pw.number,
            provenance: out.provenance,
          });
        }
        return out;
      });
      if (input.options.chunkHints && pw.extras?.tables) {
        for (const t of pw.extras.tables) {
          // Cell texts by row (one pass over the cells, in cell order).
          const rows: string[][] = Array.from({ length: t.rows }, () => []);
          for (const c of t.cells) rows[c.row].push(c.text);
          chunkBlocks.push({
            ref: t.id,
            text: rows.map((r) => r.join(' | ')).join('\n'),
            kind: 'table',
            page: pw.number,
            provenance: placeOf(within, pw.number, t.bbox),
          });
        }
      }
      const page: PdfPageT = {
        number: pw.number,
        width: r2(pw.geometry.width),
        height: r2(pw.geometry.height),
        rotation: pw.geometry.rotation as 0 | 90 | 180 | 270,
        textSource: pw.textSource,
        columns: pw.columns,
        blocks,
      };
      if (pw.label) page.label = pw.label;
      if (pw.ocr) page.ocr = { dpi: pw.ocr.dpi, meanConfidence: r2(pw.ocr.meanConfidence), lines: pw.ocr.lines };
      if (pw.extras) Object.assign(page, pw.extras.page);
      placePage(page, within);
      w.value(page);
      await w.maybeFlush();
    };

    for (let k = 0; k < n; k++) {
      await held.check();
      const i = tree.pages[k];
      const pw = await extractPage(doc, i, mode, warnings, input.settings.engines);
      // A page whose OCR failed and kept no text is failed, not blank: a client can tell them apart.
      const failure = pw.error ?? (pw.textSource === 'none' ? pw.ocrFailure : null);
      if (failure) completeness.missed('pages', 'failed', failure, { ...within, page: i + 1 });
      else completeness.emitted('pages', 1, pw.textSource === 'none' ? 1 : 0);
      if (pw.error) failedPages.push(i + 1);
      else if (pw.textSource === 'none' && !failure) emptyPages.push(i + 1);
      if (pw.textSource === 'ocr') ocrPages.push(i + 1);
      if (pw.charCount > 20 && pw.badChars / pw.charCount > 0.25) garbagePages.push(i + 1);
      // Tables continued across pages: last table at the bottom of one page, first at the top
      // of the next, with the same number of columns.
      const tables = pw.extras?.tables ?? [];
      if (mode === 'Advanced') completeness.emitted('tables', tables.length);
      if (prevTable && tables.length) {
        const t = tables[0];
        if (
          t.columns === prevTable.table.columns &&
          t.bbox[1] < pw.geometry.height * 0.3 &&
          prevTable.table.bbox[3] > prevTable.height * 0.7 &&
          prevTable.page === i
        ) {
          t.continuedFrom = prevTable.table.id;
          prevTable.table.continuesOn = t.id;
          dropRepeatedHeader(t, prevTable.head);
        }
      }
      if (tables.length) {
        const last = tables[tables.length - 1];
        // The head of a chain of continued tables keeps the header rows the others repeat.
        const head: PdfTableT = last.continuedFrom && prevTable ? prevTable.head : last;
        prevTable = { table: last, head, page: i + 1, height: pw.geometry.height };
      } else prevTable = null;
      stats.add(pw.blocks);
      sigs[i] = pw.marginSigs;
      pending.push(pw);
      while (pending.length && pending[0].number - 1 + WINDOW <= i) await emit(pending.shift()!);
      input.progress((k + 1) / n);
    }
    while (pending.length) await emit(pending.shift()!);
    await held.confirmed();
    w.endArray();
    w.field('outline', readOutline(doc));
    w.endObject();

    if (failedPages.length) warnings.push(`${failedPages.length} page(s) could not be loaded and are empty in the result: ${listPages(failedPages)}`);
    if (emptyPages.length) {
      warnings.push(
        mode === 'Ocr'
          ? `no text found on ${emptyPages.length} page(s), even with OCR: ${listPages(emptyPages)}`
          : `no extractable text on ${emptyPages.length} page(s) (scanned or image-only?): ${listPages(emptyPages)}; use pdfMode=Ocr to recognise them`,
      );
    }
    if (garbagePages.length)
      warnings.push(
        `text on ${garbagePages.length} page(s) has broken character mappings (no usable ToUnicode): ${listPages(garbagePages)}${mode === 'Ocr' ? '' : '; pdfMode=Ocr may give better text'}`,
      );

    const metadata: Record<string, unknown> = { ...meta, pageCount: n, mode };
    if (treeWarning) metadata.pageTree = { entries: tree.entries, repeated: tree.repeated, missing: tree.missing };
    if (mode === 'Ocr') metadata.ocrPages = ocrPages.length;
    return {
      documentFormat: 'pdf',
      // Pages that could not be loaded are empty in the result and not billed.
      documentUnits: n - failedPages.length,
      metadata,
      warnings,
      chunks: input.options.chunkHints ? buildChunks(chunkBlocks) : undefined,
      completeness: completeness.result(),
    };
  } finally {
    try {
      doc.close();
    } catch {
      // after a trap inside PDFium the instance is dropped anyway (resetPdfium)
    }
  }
}

function listPages(pages: number[]): string {
  return pages.length > 20 ? pages.slice(0, 20).join(', ') + ', …' : pages.join(', ');
}

async function extractPage(doc: PdfDocument, i: number, mode: Mode, warnings: string[], engines: EngineLocations): Promise<PageWork> {
  const { ex } = doc.p;
  const page = ex.FPDF_LoadPage(doc.handle, i);
  const base: PageWork = {
    number: i + 1,
    geometry: { width: 0, height: 0, rotation: 0, box: [0, 0, 0, 0] },
    label: null,
    blocks: [],
    columns: 0,
    textSource: 'none',
    ocr: null,
    extras: null,
    marginSigs: new Map(),
    charCount: 0,
    badChars: 0,
    error: null,
    ocrFailure: null,
  };
  if (!page) {
    const sz = doc.scratch;
    if (ex.FPDF_GetPageSizeByIndexF(doc.handle, i, sz.ptr)) {
      base.geometry = { width: sz.f32(0), height: sz.f32(1), rotation: 0, box: [0, 0, sz.f32(0), sz.f32(1)] };
    }
    base.error = 'PDFium could not load the page (its page object or content is damaged); it is empty in the result.';
    return base;
  }
  // Advanced mode keeps the page's text page open for its tables (closed below).
  let keptTextPage: number | undefined;
  try {
    const g = pageGeometry(doc, page);
    base.geometry = g;
    base.label = readPageLabel(doc, i);
    let layer: TextLayer = readTextLayer(doc, page, g, mode === 'SingleColumn', mode === 'Advanced');
    keptTextPage = layer.textPage;
    base.charCount = layer.charCount;
    base.badChars = layer.badChars;
    let source: 'text' | 'ocr' | 'none' = layer.charCount > 0 ? 'text' : 'none';
    if (mode === 'Ocr') {
      const scanned = pageLooksScanned(doc, page, g, engines);
      const garbage = layer.charCount > 0 && layer.badChars / layer.charCount > 0.1;
      const thin = layer.charCount < (scanned ? 200 : 10);
      if (garbage || thin) {
        try {
          const r = await ocrPage(doc, page, g, engines);
          // Keep the text layer when OCR finds less (e.g. a blank scan under a real text line).
          if (r.fragments.length && r.charCount >= layer.charCount) {
            base.ocr = r;
            layer = {
              fragments: r.fragments,
              singleColumnBlocks: null,
              frame: g,
              charCount: r.charCount,
              badChars: 0,
              invisibleChars: 0,
              verticalPairs: 0,
              duplicates: 0,
            };
            source = 'ocr';
          }
        } catch (e) {
          // A missing engine is the node's trouble, not the page's: the job fails (and is retried elsewhere).
          if (e instanceof ExtractionError || isEngineTrap(e)) throw e;
          const why = e instanceof OcrPageError ? e.message : 'the OCR engine could not read the image of the page';
          warnings.push(`OCR failed on page ${i + 1}: ${why}`);
          base.ocrFailure = `OCR failed: ${why}.`;
        }
      }
    }
    const vertical = source === 'text' && layer.verticalPairs > layer.charCount * 0.5;
    const upright = layer.fragments.filter((f) => !f.rotated);
    const rotated = layer.fragments.filter((f) => f.rotated);
    const frags = vertical ? toVertical(upright, g.width) : upright;
    let blocks: RawBlock[] = [];
    let columns = frags.length ? 1 : 0;
    if (source === 'ocr' && base.ocr) {
      blocks = base.ocr.blocks;
      columns = base.ocr.columns;
    } else if (mode === 'SingleColumn' && layer.singleColumnBlocks) {
      blocks = layer.singleColumnBlocks;
      columns = blocks.length ? 1 : 0;
    } else if (mode === 'SingleColumn') {
      for (const r of singleRegion(frags)) blocks.push(...regionBlocks(regionLines(r.frags), null));
    } else {
      // Tagged PDFs (Advanced): a block never spans two structure elements of different types.
      const types = mode === 'Advanced' && doc.tagged ? structTypes(doc, page) : undefined;
      const split = types?.size
        ? (a: { mcid?: number }, b: { mcid?: number }) => a.mcid !== b.mcid && types.get(a.mcid ?? -1) !== types.get(b.mcid ?? -1)
        : undefined;
      base.structTypes = types;
      const regions = columnRegions(frags);
      for (const r of regions) {
        columns = Math.max(columns, r.columns);
        blocks.push(...regionBlocks(regionLines(r.frags), r.column, split));
      }
    }
    // Rotated text (margin notes, stamps) comes after the page's main flow, one block per run.
    for (const f of rotated) {
      const line = { text: f.text, x0: f.x0, y0: f.y0, x1: f.x1, y1: f.y1, size: f.size, bold: f.bold, italic: f.italic, font: f.font, chars: f.chars };
      blocks.push({
        lines: [line],
        lineCount: 1,
        text: f.text,
        x0: f.x0,
        y0: f.y0,
        x1: f.x1,
        y1: f.y1,
        size: f.size,
        bold: f.bold,
        italic: f.italic,
        font: f.font,
        chars: f.chars,
        listMarker: null,
        column: null,
      });
    }
    if (vertical) {
      for (const b of blocks) {
        fromVertical(b, layer.frame.width);
        for (const l of b.lines ?? []) fromVertical(l, layer.frame.width);
      }
    }
    const frame = layer.frame;
    base.blocks = blocks;
    base.columns = columns;
    base.textSource = blocks.length ? source : 'none';
    base.marginSigs = marginCandidates(blocks, frame);
    if (mode === 'Advanced') {
      try {
        base.extras = advancedPageExtras(doc, page, i, g, frame, layer.fragments, blocks, base.structTypes, keptTextPage);
      } catch (e) {
        if (isEngineTrap(e)) throw e;
        // The page's text is kept; what PDFium's objects could not give is named, not its wrapper's error.
        const why = unreadableBecause(e, "its tables, images, links and form fields could not be read (some of the page's objects are damaged)");
        warnings.push(`advanced extraction failed on page ${i + 1}: ${why}`);
      }
    }
    if (frame.rotation !== g.rotation) {
      for (const b of blocks) {
        frameToDisplay(frame, g, b);
        for (const l of b.lines ?? []) frameToDisplay(frame, g, l);
        for (const wd of b.words ?? []) frameToDisplay(frame, g, wd);
      }
    }
  } finally {
    if (keptTextPage) ex.FPDFText_ClosePage(keptTextPage);
    ex.FPDF_ClosePage(page);
  }
  return base;
}
