// Presentations (pptx, ppt, odp): anything but PPTX is converted by LibreOffice; slides are
// streamed one by one, and each slide is a unit.
import type { JsonWriter } from '../kit/json-writer.js';
import { buildChunks, type ChunkSourceBlock } from '../chunks.js';
import { ExtractionError, type ParseOutcome } from '../kit/types.js';
import { CompletenessCounter } from '../kit/completeness.js';
import { unreadableBecause } from '../kit/reasons.js';
import type { Provenance } from '../kit/provenance.js';
import { flatOdpHeaderRows, odpPackageHeaderRows, type OdpHeaderRows } from './odp-tables.js';
import { ooxmlProperties } from './props.js';
import { readSlide, slideParts } from './pptx.js';
import type { OfficePropertiesT, OfficeSlideT } from './schema.js';
import { ZipPackage } from './zip.js';
import { guardFlatOdf } from './odf-guard.js';
import { convertInput, dropConverterProps, ooxmlMacros, precheck, readOdfPackage, type Ctx } from './shared-steps.js';

export async function parseSlides(ctx: Ctx, w: JsonWriter): Promise<ParseOutcome> {
  const { input, format, warnings, metadata } = ctx;
  const kind = await precheck(ctx);
  let pptxPath = input.filePath;
  let properties: OfficePropertiesT = {};
  let inputExt: string = format;
  let odpHeaders: OdpHeaderRows = [];
  if (format === 'pptx') {
    if (kind !== 'zip') throw new ExtractionError('not a PPTX file: it is not a ZIP package');
  } else if (format === 'odp') {
    if (kind === 'zip') {
      properties = await readOdfPackage(ctx);
      if (metadata.hasMacros) warnings.push('the presentation contains macros; they were not run');
      odpHeaders = await withZip(input.filePath, odpPackageHeaderRows);
    } else if (kind === 'flat-xml') {
      await guardFlatOdf(input.filePath);
      inputExt = 'fodp';
      odpHeaders = await flatOdpHeaderRows(input.filePath);
    } else throw new ExtractionError('not an OpenDocument presentation: it is not a ZIP package');
  } else if (format === 'ppt') {
    if (kind === 'zip') throw new ExtractionError('the .ppt file is a ZIP package (probably PPTX): upload it as pptx');
    if (kind !== 'ole') throw new ExtractionError('not a PowerPoint 97+ presentation: the file is not an OLE compound file');
  }
  if (format !== 'pptx') {
    pptxPath = await convertInput(ctx, 'pptx:Impress MS PowerPoint 2007 XML', inputExt, `${format.toUpperCase()} files`);
  }
  const zip = await ZipPackage.open(pptxPath);
  const chunkBlocks: ChunkSourceBlock[] = [];
  const completeness = new CompletenessCounter().kind('slides').kind('tables');
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
    for (const [index, part] of parts.entries()) {
      const slide = await readOrMiss(zip, part, index, ctx, completeness);
      if (slide) {
        markHeaderRows(slide, odpHeaders[index]);
        w.value(slide);
        await w.maybeFlush();
        // Hidden slides are emitted (with hidden: true): the deck holds their text; the author
        // hid them from the show, not from the file.
        if (slide.hidden) hidden++;
        completeness.emitted('slides', 1, hasText(slide) ? 0 : 1).emitted('tables', slide.tables.length);
        if (input.options.chunkHints) pushChunkBlocks(chunkBlocks, slide);
        count++;
      }
      input.progress((index + 1) / parts.length);
    }
    w.endArray().endObject();
    if (format === 'pptx' && storedSlides !== undefined) metadata.storedSlideCount = storedSlides;
  } finally {
    zip.close();
  }
  if (count === 0 && completeness.result().slides?.failed) throw new ExtractionError('no slide of the presentation could be read');
  if (count === 0) warnings.push('the presentation has no slides');
  metadata.slideCount = count;
  metadata.hiddenSlides = hidden;
  metadata.pageCount = { source: 'slides', slides: count };
  const outcome: ParseOutcome = { documentFormat: format, documentUnits: Math.max(count, 1), metadata, warnings, completeness: completeness.result() };
  if (input.options.chunkHints) outcome.chunks = buildChunks(chunkBlocks);
  return outcome;
}

/**
 * Slide `index`, or null when it cannot be read: its part is missing or damaged. That slide
 * is counted as failed (with why) and the others are still read.
 */
async function readOrMiss(zip: ZipPackage, part: string | null, index: number, ctx: Ctx, completeness: CompletenessCounter): Promise<OfficeSlideT | null> {
  const where: Provenance = { ...ctx.input.within, slide: index + 1 };
  if (!part) {
    const why = `slide ${index + 1} is listed by the presentation but its part is not in the package`;
    ctx.warnings.push(why);
    completeness.missed('slides', 'failed', why, where);
    return null;
  }
  try {
    return await readSlide(zip, part, index, ctx.warnings, ctx.input.within);
  } catch (err) {
    // Limits and encryption stop the whole document; a damaged slide stops only itself.
    if (!(err instanceof ExtractionError) || err.code !== 'extraction_failed') throw err;
    const why = `slide ${index + 1} is unreadable: ${unreadableBecause(err, 'its part is damaged')}`;
    ctx.warnings.push(why);
    completeness.missed('slides', 'failed', why, where);
    return null;
  }
}

/** The ODP's header flags on the converted slide's tables, when the slide holds the same tables. */
function markHeaderRows(slide: OfficeSlideT, headers: number[] | undefined): void {
  if (!headers || headers.length !== slide.tables.length) return;
  slide.tables.forEach((t, i) => (t.headerRows = Math.max(t.headerRows, headers[i])));
}

/** Text on the slide: a text block, a table cell or speaker notes. */
function hasText(slide: OfficeSlideT): boolean {
  return slide.textBlocks.length > 0 || slide.notes !== null || slide.tables.some((t) => t.rows.some((r) => r.some((c) => c.text.trim())));
}

function pushChunkBlocks(chunkBlocks: ChunkSourceBlock[], slide: OfficeSlideT): void {
  const page = slide.number;
  const provenance = slide.provenance;
  chunkBlocks.push({ ref: `slides.${slide.index}`, text: slide.title ?? `Slide ${slide.number}`, kind: 'heading', level: 1, page, provenance });
  slide.textBlocks.forEach((b, i) => {
    if (b.placeholder === 'title' || b.placeholder === 'ctrTitle') return;
    chunkBlocks.push({ ref: `slides.${slide.index}.textBlocks.${i}`, text: b.text, kind: 'paragraph', page, provenance });
  });
  slide.tables.forEach((t, i) =>
    chunkBlocks.push({
      ref: `slides.${slide.index}.tables.${i}`,
      text: t.rows.map((r) => r.map((c) => c.text).join(' | ')).join('\n'),
      kind: 'table',
      page,
      provenance,
    }),
  );
  if (slide.notes) chunkBlocks.push({ ref: `slides.${slide.index}.notes`, text: slide.notes, kind: 'other', page, provenance });
}

async function withZip<T>(filePath: string, read: (zip: ZipPackage) => Promise<T>): Promise<T> {
  const zip = await ZipPackage.open(filePath);
  try {
    return await read(zip);
  } finally {
    zip.close();
  }
}
