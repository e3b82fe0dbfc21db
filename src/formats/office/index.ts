// Office and OpenDocument family: docx, doc, odt, rtf (documents), xlsx, xls, ods
// (spreadsheets), pptx, ppt, odp (presentations).
//
// OOXML packages are read directly (guarded ZIP + XML). Legacy binaries, RTF and
// OpenDocument files go through LibreOffice headless to OOXML and are then read by the same
// readers. Document Units: word-processing documents count rendered pages (LibreOffice →
// PDF; the stored page count is reported beside it and used only as a fallback when
// rendering is unavailable), presentations count slides, spreadsheets count sheets.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { JsonWriter } from '../kit/json-writer.js';
import { buildChunks, type ChunkSourceBlock } from '../chunks.js';
import { ExtractionError, type FormatParser, type ParseInput, type ParseOutcome } from '../kit/types.js';
import { blockText, DocxReader, type DocxModel } from './docx.js';
import { convert, libreOfficeAvailable, libreOfficeRun, renderPageCount } from './libreoffice.js';
import { engineUnavailable } from '../kit/engine-unavailable.js';
import { inspectOle, isBareBiff, isOle, isRtf, looksLikePlainText, olePageCount } from './ole.js';
import { isZipHead, readFileHead } from '../kit/file-head.js';
import { odfProperties, ooxmlProperties } from './props.js';
import { readSlide, slideParts } from './pptx.js';
import type { OfficeBlock, OfficePropertiesT } from './schema.js';
import { loadWorkbook, writeSpreadsheet } from './xlsx.js';
import { ZipPackage } from './zip.js';

export type OfficeFormat = 'docx' | 'doc' | 'odt' | 'rtf' | 'xlsx' | 'xls' | 'ods' | 'pptx' | 'ppt' | 'odp';

/** Bytes read to tell the container and text encodings apart. */
const HEAD_BYTES = 4096;
const WORD: ReadonlySet<string> = new Set(['docx', 'doc', 'odt', 'rtf']);
const SHEET: ReadonlySet<string> = new Set(['xlsx', 'xls', 'ods']);

interface Ctx {
  input: ParseInput;
  format: OfficeFormat;
  warnings: string[];
  metadata: Record<string, unknown>;
  work: string;
}

async function workDir(input: ParseInput): Promise<string> {
  const d = path.join(input.tempDir, `office-${Math.random().toString(36).slice(2, 8)}`);
  await fs.mkdir(d, { recursive: true });
  return d;
}

/** Refuses files that are not the container their format needs; reports encryption. */
async function precheck(ctx: Ctx): Promise<'zip' | 'ole' | 'rtf' | 'flat-xml' | 'biff' | 'other'> {
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
    throw new ExtractionError(`not an OpenDocument file (mimetype ${mt.trim().slice(0, 80)})`);
  }
}

/** OOXML: macro-enabled package type (docm/xlsm/pptm) and whether a VBA project is present. */
async function ooxmlMacros(zip: ZipPackage, metadata: Record<string, unknown>): Promise<void> {
  const ct = await zip.readTextIfPresent('[Content_Types].xml', 4 << 20).catch(() => null);
  if (ct && /macroEnabled/i.test(ct)) metadata.macroEnabled = true;
  if (zip.names().some((n) => /vbaProject\.bin$/i.test(n))) metadata.hasMacros = true;
}

/** OpenDocument packages keep Basic macros under Basic/<library>/<module>.xml. */
function odfHasMacros(zip: ZipPackage): boolean {
  return zip.names().some((n) => /^Basic\/[^/]+\/[^/]+\.xml$/.test(n) && !/script-l[bc]\.xml$/.test(n));
}

/** An OpenDocument package (the input itself): its meta.xml properties; notes Basic macros in metadata.hasMacros. */
async function readOdfPackage(ctx: Ctx): Promise<OfficePropertiesT> {
  const zip = await ZipPackage.open(ctx.input.filePath);
  try {
    await checkOdfEncryption(zip);
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
async function convertInput(ctx: Ctx, filter: string, inputExt: string, what: string): Promise<string> {
  if (!libreOfficeAvailable(ctx.input.settings.engines)) throw engineUnavailable('LibreOffice', `to read ${what}`);
  const r = await convert(ctx.input.filePath, filter, ctx.work, libreOfficeRun(ctx.input.settings), { inputExt });
  ctx.metadata.converter = { engine: 'libreoffice', to: filter.slice(0, filter.indexOf(':')), millis: r.millis };
  return r.outputPath;
}

function dropConverterProps(p: OfficePropertiesT): OfficePropertiesT {
  const { pages: _p, application: _a, template: _t, words: _w, characters: _c, ...rest } = p;
  return rest;
}

// ---- word-processing documents ----------------------------------------------------------

async function parseWord(ctx: Ctx, w: JsonWriter): Promise<ParseOutcome> {
  const { input, format, warnings, metadata } = ctx;
  const kind = await precheck(ctx);
  let docxPath = input.filePath;
  let properties: OfficePropertiesT = {};
  let renderExt: string | undefined;

  if (format === 'docx') {
    if (kind !== 'zip') throw new ExtractionError(kind === 'ole' ? 'not a DOCX package' : 'not a DOCX file: it is not a ZIP package');
  } else if (format === 'odt') {
    if (kind === 'zip') {
      properties = await readOdfPackage(ctx);
    } else if (kind === 'flat-xml') {
      renderExt = 'fodt';
      metadata.flatOpenDocument = true;
      const text = (await readFileHead(input.filePath, 4 << 20)).toString('utf8');
      const pc = /meta:page-count="(\d+)"/.exec(text);
      if (pc) properties.pages = Number(pc[1]);
      if (/<office:script\b[^>]*script:language="ooo:Basic"|<script:module\b/.test(text)) metadata.hasMacros = true;
    } else {
      throw new ExtractionError('not an OpenDocument text file: it is not a ZIP package');
    }
  } else if (format === 'rtf') {
    if (kind !== 'rtf') throw new ExtractionError('not an RTF file: it does not start with {\\rtf');
    const pc = /\\nofpages(\d+)/.exec((await readFileHead(input.filePath, 1 << 20)).toString('latin1'));
    if (pc) properties.pages = Number(pc[1]);
  } else if (format === 'doc') {
    if (kind === 'rtf') {
      renderExt = 'rtf';
      warnings.push('the .doc file is RTF; converted as RTF');
    } else if (kind === 'zip') {
      throw new ExtractionError('the .doc file is a ZIP package (probably DOCX): upload it as docx');
    } else if (kind !== 'ole') {
      const h = await readFileHead(input.filePath, HEAD_BYTES);
      if (looksLikePlainText(h)) throw new ExtractionError('not a Word document: the file is plain text');
      warnings.push('not a Word 97+ binary document; LibreOffice recognised the content (e.g. WordPerfect) and converted it');
      metadata.nonWordContent = true;
    }
    if (kind === 'ole') {
      const pc = await olePageCount(input.filePath);
      if (pc !== null) properties.pages = pc;
    }
  }

  // Content: DOCX directly; the others through LibreOffice → DOCX. Rendering runs alongside.
  const work = ctx.work;
  // In "auto" mode a DOCX whose stored page count Word's own layout markers confirm is not
  // rendered; that is decided after reading it.
  const startRender = () => (input.settings.office.render === 'auto' && format === 'docx' ? null : renderPages(ctx, renderExt));
  let renderP: Promise<RenderResult> | null = null;
  if (format !== 'docx') {
    renderP = startRender();
    docxPath = await convertInput(ctx, 'docx:MS Word 2007 XML', renderExt ?? format, `${format.toUpperCase()} files`);
  }

  const zip = await ZipPackage.open(docxPath);
  // A DOCX is rendered only once the archive guard has inflated every part of it (opening
  // it above): LibreOffice never reads a package whose headers lie about its sizes.
  if (format === 'docx') renderP = startRender();
  let model: DocxModel;
  try {
    warnings.push(...zip.warnings);
    if (format === 'docx') await ooxmlMacros(zip, metadata);
    if (format === 'docx' || format === 'doc' || format === 'rtf') {
      const p = await ooxmlProperties(zip, warnings);
      properties = format === 'docx' ? p : { ...dropConverterProps(p), ...properties };
    } else {
      // ODT: stored properties come from meta.xml; take only what it lacks from the copy.
      const p = dropConverterProps(await ooxmlProperties(zip, warnings));
      properties = { ...p, ...properties };
    }
    const reader = new DocxReader(zip, warnings, input.settings.office.maxPartBytes);
    try {
      model = await reader.read();
    } catch (err) {
      if (format === 'docx' && err instanceof ExtractionError && /malformed XML/.test(err.message) && libreOfficeAvailable(input.settings.engines)) {
        // A damaged main part: LibreOffice is more forgiving; read its re-saved copy.
        warnings.push(`${err.message}; read through LibreOffice's recovery instead`);
        zip.close();
        const r = await convert(input.filePath, 'docx:MS Word 2007 XML', work, libreOfficeRun(input.settings), { inputExt: 'docx' });
        const z2 = await ZipPackage.open(r.outputPath);
        try {
          const rd = new DocxReader(z2, warnings, input.settings.office.maxPartBytes);
          model = await rd.read();
          await rd.resolveAltChunks();
        } finally {
          z2.close();
        }
        metadata.recoveredBy = 'libreoffice';
        return finishWord(ctx, w, model, properties, await (renderP ?? renderPages(ctx, renderExt)));
      }
      throw err;
    }
    await reader.resolveAltChunks();
  } finally {
    zip.close();
  }
  if (model.hasMacros) metadata.hasMacros = true;
  if (metadata.hasMacros) warnings.push('the document contains macros; they were not run');
  if (!renderP) {
    const wordPages = model.renderedPageBreaks + 1;
    const byWord = /Microsoft Office Word|Microsoft Word/i.test(properties.application ?? '');
    renderP = byWord && properties.pages === wordPages ? Promise.resolve({ confirmed: wordPages }) : renderPages(ctx, renderExt);
  }
  return finishWord(ctx, w, model, properties, await renderP);
}

type RenderResult = { pages: number; millis: number } | { confirmed: number } | { error: string; disabled?: boolean };

/**
 * Pages rendered by LibreOffice, as settings.office.render (DOCPARSE_OFFICE_RENDER) asks:
 * "always" (default) renders every word-processing document; "auto" skips rendering a DOCX
 * written by Word when its stored page count equals Word's own layout (lastRenderedPageBreak
 * markers + 1, decided by the caller); "off" never renders (stored count billed).
 */
function renderPages(ctx: Ctx, inputExt?: string): Promise<RenderResult> {
  const { settings } = ctx.input;
  if (settings.office.render === 'off') return Promise.resolve({ error: 'rendering is turned off (DOCPARSE_OFFICE_RENDER=0)', disabled: true });
  if (!libreOfficeAvailable(settings.engines)) return Promise.resolve({ error: 'LibreOffice is not installed on this node' });
  return renderPageCount(ctx.input.filePath, ctx.work, libreOfficeRun(settings), inputExt ?? ctx.format).catch((err: Error) => ({ error: err.message }));
}

async function finishWord(ctx: Ctx, w: JsonWriter, model: DocxModel, properties: OfficePropertiesT, render: RenderResult): Promise<ParseOutcome> {
  const { warnings, metadata } = ctx;
  const stored = properties.pages;
  let units: number;
  if ('confirmed' in render) {
    units = render.confirmed;
    metadata.pageCount = { source: 'stored-confirmed', rendered: null, stored: stored ?? null, storedAgrees: true, wordLayoutPages: render.confirmed };
  } else if ('pages' in render) {
    units = render.pages;
    metadata.pageCount = {
      source: 'rendered',
      rendered: render.pages,
      stored: stored ?? null,
      storedAgrees: stored === undefined ? null : stored === render.pages,
      renderMillis: render.millis,
    };
    if (stored !== undefined && stored !== render.pages)
      warnings.push(`the document's stored page count (${stored}) disagrees with the rendered layout (${render.pages}); the rendered count is used`);
  } else {
    // Without LibreOffice the stored count is a guess (often stale: 7 stored, 9 rendered), so
    // it is not billed: the job fails as engine_unavailable and is retried, perhaps on a
    // worker that has LibreOffice. Only DOCPARSE_OFFICE_RENDER=off asks for stored counts.
    if (!render.disabled && !libreOfficeAvailable(ctx.input.settings.engines))
      throw engineUnavailable('LibreOffice', `to count the pages of ${ctx.format.toUpperCase()} documents`);
    if (ctx.format !== 'docx' && !render.disabled) throw new ExtractionError(`page rendering failed: ${render.error}`);
    units = stored && stored > 0 ? stored : 1;
    metadata.pageCount = { source: stored ? 'stored' : 'minimum', rendered: null, stored: stored ?? null, storedAgrees: null, renderError: render.error };
    warnings.push(`pages could not be rendered (${render.error}); the ${stored ? "document's stored page count" : 'minimum of one page'} is used`);
  }

  w.beginObject().field('kind', 'document').field('properties', properties).key('blocks').beginArray();
  for (const b of model.blocks) {
    w.value(b);
    await w.maybeFlush();
  }
  w.endArray()
    .field('headersFooters', model.headersFooters)
    .field('footnotes', model.footnotes)
    .field('endnotes', model.endnotes)
    .field('comments', model.comments)
    .field('hyperlinks', model.hyperlinks)
    .field('images', model.images)
    .endObject();

  Object.assign(metadata, {
    blockCount: model.blocks.length,
    headingCount: model.blocks.filter((b) => b.type === 'heading').length,
    tableCount: model.blocks.filter((b) => b.type === 'table').length,
    footnoteCount: model.footnotes.length,
    endnoteCount: model.endnotes.length,
    commentCount: model.comments.length,
    imageCount: model.images.length,
  });
  const outcome: ParseOutcome = { documentFormat: ctx.format, documentUnits: units, metadata, warnings };
  if (ctx.input.options.chunkHints) outcome.chunks = buildChunks(documentChunkBlocks(model.blocks));
  return outcome;
}

function* documentChunkBlocks(blocks: OfficeBlock[]): Generator<ChunkSourceBlock> {
  for (const b of blocks) {
    const ref = `blocks.${b.index}`;
    if (b.type === 'heading') yield { ref, text: b.text, kind: 'heading', level: b.level };
    else if (b.type === 'listItem') yield { ref, text: b.label ? `${b.label} ${b.text}` : b.text, kind: 'list' };
    else if (b.type === 'table') yield { ref, text: blockText(b), kind: 'table' };
    else yield { ref, text: b.text, kind: 'paragraph' };
  }
}

// ---- spreadsheets -----------------------------------------------------------------------

async function parseSheet(ctx: Ctx, w: JsonWriter): Promise<ParseOutcome> {
  const { input, format, warnings, metadata } = ctx;
  const kind = await precheck(ctx);
  let xlsxPath = input.filePath;
  let properties: OfficePropertiesT = {};
  let needConvert = format !== 'xlsx';
  let inputExt: string = format;
  let declaredSheets = 0;

  if (format === 'xlsx') {
    if (kind !== 'zip') throw new ExtractionError('not an XLSX file: it is not a ZIP package');
    const zip = await ZipPackage.open(input.filePath);
    try {
      warnings.push(...zip.warnings);
      properties = await ooxmlProperties(zip, warnings);
      delete properties.pages;
      await ooxmlMacros(zip, metadata);
      if (metadata.hasMacros) warnings.push('the workbook contains macros; they were not run');
      if (zip.resolve('xl/workbook.bin')) {
        needConvert = true;
        inputExt = 'xlsb';
        metadata.sourceVariant = 'xlsb';
        const rels = await zip.readTextIfPresent('xl/_rels/workbook.bin.rels', 4 << 20);
        declaredSheets = rels ? (rels.match(/\/relationships\/worksheet"/g) ?? []).length : 0;
      } else {
        const wbXml = await zip.readTextIfPresent('xl/workbook.xml', 16 << 20);
        if (wbXml === null) throw new ExtractionError('not a spreadsheet: the package has no xl/workbook.xml');
        if (/purl\.oclc\.org\/ooxml\/spreadsheetml/.test(wbXml)) {
          needConvert = true;
          metadata.sourceVariant = 'strict';
        }
        if (/<(?:\w+:)?workbookPr[^>]*date1904="(?:1|true)"/.test(wbXml)) metadata.date1904 = true;
      }
    } finally {
      zip.close();
    }
  } else if (format === 'ods') {
    if (kind === 'zip') {
      properties = await readOdfPackage(ctx);
      delete properties.pages;
      if (metadata.hasMacros) warnings.push('the spreadsheet contains macros; they were not run');
    } else if (kind === 'flat-xml') inputExt = 'fods';
    else throw new ExtractionError('not an OpenDocument spreadsheet: it is not a ZIP package');
  } else if (format === 'xls') {
    if (kind === 'zip') throw new ExtractionError('the .xls file is a ZIP package (probably XLSX): upload it as xlsx');
    if (kind === 'biff') {
      metadata.sourceVariant = 'biff2-4';
    } else if (kind !== 'ole') {
      const h = await readFileHead(input.filePath, HEAD_BYTES);
      const s = h.toString('utf8').trimStart().toLowerCase();
      if (!(s.startsWith('<') && /spreadsheet|<table|<html/.test(s)))
        throw new ExtractionError('not an Excel workbook: the file is neither an OLE compound file nor a BIFF record stream');
      warnings.push('the .xls file is an HTML/XML spreadsheet; converted by LibreOffice');
    }
  }

  if (needConvert) {
    xlsxPath = await convertInput(ctx, 'xlsx:Calc MS Excel 2007 XML', inputExt, `this ${format.toUpperCase()} file`);
    if (format !== 'ods') {
      const z = await ZipPackage.open(xlsxPath);
      try {
        const p = dropConverterProps(await ooxmlProperties(z, warnings));
        properties = { ...p, ...properties };
      } finally {
        z.close();
      }
    }
  }
  // Guard the package (sizes, ratios) before exceljs inflates it; exceljs holds every cell
  // in memory (a few hundred bytes each), so the sheet XML is bounded for the worker's heap.
  const z = await ZipPackage.open(xlsxPath);
  try {
    z.checkRatios();
    const sheetBytes = z
      .names()
      .filter((n) => /^xl\/worksheets\/[^/]+\.xml$/i.test(n))
      .reduce((a, n) => a + (z.info(n)?.uncompressedSize ?? 0), 0);
    const maxSheetXmlBytes = input.settings.office.maxSheetXmlBytes;
    if (sheetBytes > maxSheetXmlBytes) {
      throw new ExtractionError(
        `the workbook's sheets hold ${Math.round(sheetBytes / 2 ** 20)} MiB of cell XML, over this node's ${Math.round(maxSheetXmlBytes / 2 ** 20)} MiB limit for spreadsheets`,
      );
    }
  } finally {
    z.close();
  }
  // A sheet is a unit: held before the workbook's cells are loaded.
  await input.units?.reserve(Math.max(declaredSheets, 1));
  const wb = await loadWorkbook(xlsxPath);
  const chunkBlocks = input.options.chunkHints ? ([] as ChunkSourceBlock[]) : null;
  const sheets = await writeSpreadsheet(wb, w, properties, chunkBlocks);
  if (!sheets.length) throw new ExtractionError('the workbook has no readable worksheets');
  const totalCells = sheets.reduce((a, s) => a + s.cellCount, 0);
  if (declaredSheets > sheets.length) {
    warnings.push(
      `the converter read ${sheets.length} of the ${declaredSheets} worksheets this ${metadata.sourceVariant ?? format} workbook declares; the others are missing from content`,
    );
  }
  if (needConvert && totalCells === 0) warnings.push('no cell values were read from this workbook (empty sheets, or content the converter does not support)');
  Object.assign(metadata, {
    sheetCount: sheets.length,
    hiddenSheets: sheets.filter((s) => s.state !== 'visible').map((s) => s.name),
    cellCount: totalCells,
    pageCount: { source: 'sheets', sheets: Math.max(sheets.length, declaredSheets) },
  });
  const outcome: ParseOutcome = { documentFormat: format, documentUnits: Math.max(sheets.length, declaredSheets), metadata, warnings };
  if (chunkBlocks) outcome.chunks = buildChunks(chunkBlocks);
  return outcome;
}

// ---- presentations ----------------------------------------------------------------------

async function parseSlides(ctx: Ctx, w: JsonWriter): Promise<ParseOutcome> {
  const { input, format, warnings, metadata } = ctx;
  const kind = await precheck(ctx);
  let pptxPath = input.filePath;
  let properties: OfficePropertiesT = {};
  let inputExt: string = format;
  if (format === 'pptx') {
    if (kind !== 'zip') throw new ExtractionError('not a PPTX file: it is not a ZIP package');
  } else if (format === 'odp') {
    if (kind === 'zip') {
      properties = await readOdfPackage(ctx);
      if (metadata.hasMacros) warnings.push('the presentation contains macros; they were not run');
    } else if (kind === 'flat-xml') inputExt = 'fodp';
    else throw new ExtractionError('not an OpenDocument presentation: it is not a ZIP package');
  } else if (format === 'ppt') {
    if (kind === 'zip') throw new ExtractionError('the .ppt file is a ZIP package (probably PPTX): upload it as pptx');
    if (kind !== 'ole') throw new ExtractionError('not a PowerPoint 97+ presentation: the file is not an OLE compound file');
  }
  if (format !== 'pptx') {
    pptxPath = await convertInput(ctx, 'pptx:Impress MS PowerPoint 2007 XML', inputExt, `${format.toUpperCase()} files`);
  }
  const zip = await ZipPackage.open(pptxPath);
  const chunkBlocks: ChunkSourceBlock[] = [];
  let count = 0;
  let hidden = 0;
  try {
    warnings.push(...zip.warnings);
    const p = await ooxmlProperties(zip, warnings);
    const storedSlides = p.pages;
    delete p.pages;
    properties = format === 'pptx' ? p : { ...dropConverterProps(p), ...properties };
    delete properties.pages;
    if (format === 'pptx') {
      await ooxmlMacros(zip, metadata);
      if (metadata.hasMacros) warnings.push('the presentation contains macros; they were not run');
    }
    const parts = await slideParts(zip);
    // A slide is a unit: held before the slides are read.
    await input.units?.reserve(Math.max(parts.length, 1));
    w.beginObject().field('kind', 'presentation').field('properties', properties).key('slides').beginArray();
    for (const part of parts) {
      const slide = await readSlide(zip, part, count, warnings);
      w.value(slide);
      await w.maybeFlush();
      if (slide.hidden) hidden++;
      if (input.options.chunkHints) {
        const page = slide.number;
        chunkBlocks.push({ ref: `slides.${slide.index}`, text: slide.title ?? `Slide ${slide.number}`, kind: 'heading', level: 1, page });
        slide.textBlocks.forEach((b, i) => {
          if (b.placeholder === 'title' || b.placeholder === 'ctrTitle') return;
          chunkBlocks.push({ ref: `slides.${slide.index}.textBlocks.${i}`, text: b.text, kind: 'paragraph', page });
        });
        slide.tables.forEach((t, i) =>
          chunkBlocks.push({
            ref: `slides.${slide.index}.tables.${i}`,
            text: t.rows.map((r) => r.map((c) => c.text).join(' | ')).join('\n'),
            kind: 'table',
            page,
          }),
        );
        if (slide.notes) chunkBlocks.push({ ref: `slides.${slide.index}.notes`, text: slide.notes, kind: 'other', page });
      }
      count++;
      input.progress(count / parts.length);
    }
    w.endArray().endObject();
    if (format === 'pptx' && storedSlides !== undefined) metadata.storedSlideCount = storedSlides;
  } finally {
    zip.close();
  }
  if (count === 0) warnings.push('the presentation has no slides');
  metadata.slideCount = count;
  metadata.hiddenSlides = hidden;
  metadata.pageCount = { source: 'slides', slides: count };
  const outcome: ParseOutcome = { documentFormat: format, documentUnits: Math.max(count, 1), metadata, warnings };
  if (input.options.chunkHints) outcome.chunks = buildChunks(chunkBlocks);
  return outcome;
}

// ---- entry points -----------------------------------------------------------------------

export function officeParser(format: OfficeFormat): FormatParser {
  return async (input, content) => {
    const ctx: Ctx = { input, format, warnings: [], metadata: { sourceFormat: format }, work: await workDir(input) };
    try {
      if (WORD.has(format)) return await parseWord(ctx, content);
      if (SHEET.has(format)) return await parseSheet(ctx, content);
      return await parseSlides(ctx, content);
    } catch (err) {
      if (err instanceof ExtractionError) throw err;
      const e = err as NodeJS.ErrnoException;
      if (e?.code === 'ENOSPC' || e?.code === 'EMFILE') throw err;
      throw new ExtractionError(
        `The ${format.toUpperCase()} document could not be read: its structure is damaged or uses a feature the reader does not support.`,
        'extraction_failed',
        false,
        { cause: err },
      );
    } finally {
      await fs.rm(ctx.work, { recursive: true, force: true }).catch(() => {});
    }
  };
}

/** One parser per format name; dispatches on input.format (for registry wiring). */
export const parseOffice: FormatParser = (input, content) => officeParser(input.format as OfficeFormat)(input, content);

export const parseDocx = officeParser('docx');
export const parseDoc = officeParser('doc');
export const parseOdt = officeParser('odt');
export const parseRtf = officeParser('rtf');
export const parseXlsx = officeParser('xlsx');
export const parseXls = officeParser('xls');
export const parseOds = officeParser('ods');
export const parsePptx = officeParser('pptx');
export const parsePpt = officeParser('ppt');
export const parseOdp = officeParser('odp');
