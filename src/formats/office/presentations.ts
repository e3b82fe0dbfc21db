// Presentations (pptx, ppt, odp): anything but PPTX is converted by LibreOffice; slides are
// streamed one by one, and each slide is a unit.
import type { JsonWriter } from '../kit/json-writer.js';
import { buildChunks, type ChunkSourceBlock } from '../chunks.js';
import { ExtractionError, type ParseOutcome } from '../kit/types.js';
import { ooxmlProperties } from './props.js';
import { readSlide, slideParts } from './pptx.js';
import type { OfficePropertiesT } from './schema.js';
import { ZipPackage } from './zip.js';
import { guardFlatOdf } from './odf-guard.js';
import { convertInput, dropConverterProps, ooxmlMacros, precheck, readOdfPackage, type Ctx } from './shared-steps.js';

export async function parseSlides(ctx: Ctx, w: JsonWriter): Promise<ParseOutcome> {
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
    } else if (kind === 'flat-xml') {
      await guardFlatOdf(input.filePath);
      inputExt = 'fodp';
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
