// Word-processing documents (docx, doc, odt, rtf): content read from DOCX (the others converted
// by LibreOffice first), and the page count billed — rendered by LibreOffice, or Word's own
// layout when settings allow — with the stored count reported beside it.
import type { JsonWriter } from '../kit/json-writer.js';
import { buildChunks, type ChunkSourceBlock } from '../chunks.js';
import { unreadableBecause } from '../kit/reasons.js';
import { ExtractionError, type ParseOutcome } from '../kit/types.js';
import { blockText, DocxReader, MAX_DEPTH, mainDocumentPart, type DocxModel } from './docx.js';
import { guardDocxColumns } from './docx-guard.js';
import { guardFlatOdf } from './odf-guard.js';
import { guardRtf } from './rtf-guard.js';
import { convert, libreOfficeAvailable, libreOfficeRun, renderLayout } from './libreoffice.js';
import { renderedPageTexts } from './rendered-text.js';
import { PageLocator } from './page-locator.js';
import { addBlockProvenance, countTables } from './block-provenance.js';
import { CompletenessCounter } from '../kit/completeness.js';
import type { Provenance } from '../kit/provenance.js';
import { engineUnavailable } from '../kit/engine-unavailable.js';
import { looksLikePlainText, olePageCount } from './ole.js';
import { readFileHead } from '../kit/file-head.js';
import { ooxmlProperties } from './props.js';
import type { OfficeBlock, OfficePropertiesT } from './schema.js';
import { ZipPackage } from './zip.js';
import { convertInput, dropConverterProps, HEAD_BYTES, ooxmlMacros, precheck, readOdfPackage, type Ctx } from './shared-steps.js';

export async function parseWord(ctx: Ctx, w: JsonWriter): Promise<ParseOutcome> {
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
      await guardFlatOdf(input.filePath);
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
    await guardRtf(input.filePath);
    const pc = /\\nofpages(\d+)/.exec((await readFileHead(input.filePath, 1 << 20)).toString('latin1'));
    if (pc) properties.pages = Number(pc[1]);
  } else if (format === 'doc') {
    if (kind === 'rtf') {
      await guardRtf(input.filePath);
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
  // it above), and its sections' columns are known to be few enough to lay out: LibreOffice
  // never reads a package whose headers lie about its sizes, nor one that would hang it.
  let mainXml: string | undefined;
  try {
    if (format === 'docx') {
      mainXml = await zip.readText(await mainDocumentPart(zip), input.settings.office.maxPartBytes);
      guardDocxColumns(mainXml);
    }
  } catch (err) {
    zip.close();
    throw err;
  }
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
      model = await reader.read(mainXml);
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

/**
 * `pageTexts`: the rendered layout's text per page, or why it could not be read; `error`: why
 * pages were not rendered, a sentence; `cause`: the error behind it, for the log.
 */
type RenderResult =
  { pages: number; millis: number; pageTexts: string[] | { error: string } } | { confirmed: number } | { error: string; disabled?: boolean; cause?: unknown };

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
  // The layout's text gives each block its page; a PDF PDFium cannot read costs the pages, not the count.
  const readTexts = (pdf: string) =>
    renderedPageTexts(pdf, settings.pdf.optimizedPdfium).catch((err: unknown) => ({
      error: `the rendered layout's text could not be read: ${unreadableBecause(err, 'PDFium could not open it')}`,
    }));
  return renderLayout(ctx.input.filePath, ctx.work, libreOfficeRun(settings), inputExt ?? ctx.format, readTexts).then(
    (r): RenderResult => ({ pages: r.pages, millis: r.millis, pageTexts: r.read }),
    (err: unknown) => ({ error: unreadableBecause(err, 'LibreOffice could not lay the document out'), cause: err }),
  );
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
    if (ctx.format !== 'docx' && !render.disabled)
      throw new ExtractionError(`page rendering failed: ${render.error}`, 'extraction_failed', false, { cause: render.cause });
    units = stored && stored > 0 ? stored : 1;
    metadata.pageCount = { source: stored ? 'stored' : 'minimum', rendered: null, stored: stored ?? null, storedAgrees: null, renderError: render.error };
    warnings.push(`pages could not be rendered (${render.error}); the ${stored ? "document's stored page count" : 'minimum of one page'} is used`);
  }

  const locator = 'pageTexts' in render && Array.isArray(render.pageTexts) ? new PageLocator(render.pageTexts) : null;
  addBlockProvenance(model.blocks, ctx.input.within, locator);
  metadata.blockPages = locator
    ? { source: 'rendered', located: locator.located, notLocated: locator.notLocated }
    : { source: null, reason: noLayoutReason(render) };
  // A render that failed is already a warning; a layout rendered but unreadable is said here.
  if ('pageTexts' in render && !Array.isArray(render.pageTexts)) warnings.push(`blocks have no page: ${render.pageTexts.error}`);

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
  const outcome: ParseOutcome = {
    documentFormat: ctx.format,
    documentUnits: units,
    metadata,
    warnings,
    completeness: wordCompleteness(model, units, locator, ctx.input.within),
  };
  if (ctx.input.options.chunkHints) outcome.chunks = buildChunks(documentChunkBlocks(model.blocks));
  return outcome;
}

/** Why blocks carry no page: the layout was not rendered, or its text could not be read. */
function noLayoutReason(render: RenderResult): string {
  if ('confirmed' in render) return "the layout was not rendered: DOCPARSE_OFFICE_RENDER=auto took Word's stored page count";
  if ('error' in render) return `the layout was not rendered: ${render.error}`;
  return Array.isArray(render.pageTexts) ? '' : render.pageTexts.error;
}

/**
 * Pages: every page of the count billed is in the artifact (its text is in the blocks); empty
 * ones are known only from a rendered layout (pages with no letters or digits). Tables: those
 * of the body, nested ones included; tables nested too deeply to read are skipped.
 */
function wordCompleteness(model: DocxModel, units: number, locator: PageLocator | null, within: Provenance = {}) {
  const c = new CompletenessCounter().kind('pages').kind('tables');
  c.emitted('pages', units, locator && locator.pageCount === units ? locator.emptyPages.length : 0);
  c.emitted('tables', countTables(model.blocks));
  for (let i = 0; i < model.tablesTooDeep; i++)
    c.missed('tables', 'skipped', `the table is nested more than ${MAX_DEPTH} levels deep; its content is not read`, within);
  return c.result();
}

function* documentChunkBlocks(blocks: OfficeBlock[]): Generator<ChunkSourceBlock> {
  for (const b of blocks) {
    const ref = `blocks.${b.index}`;
    const at = { page: b.provenance?.page, provenance: b.provenance };
    if (b.type === 'heading') yield { ref, text: b.text, kind: 'heading', level: b.level, ...at };
    else if (b.type === 'listItem') yield { ref, text: b.label ? `${b.label} ${b.text}` : b.text, kind: 'list', ...at };
    else if (b.type === 'table') yield { ref, text: blockText(b), kind: 'table', ...at };
    else yield { ref, text: b.text, kind: 'paragraph', ...at };
  }
}
