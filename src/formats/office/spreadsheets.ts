// Spreadsheets (xlsx, xls, ods): anything but a plain XLSX is converted by LibreOffice, the
// package is guarded before exceljs loads it, and each sheet is a unit.
import type { JsonWriter } from '../kit/json-writer.js';
import { buildChunks, type ChunkSourceBlock } from '../chunks.js';
import { ExtractionError, type ParseOutcome } from '../kit/types.js';
import { CompletenessCounter } from '../kit/completeness.js';
import { readFileHead } from '../kit/file-head.js';
import { ooxmlProperties } from './props.js';
import type { OfficePropertiesT } from './schema.js';
import { loadWorkbook, writeSpreadsheet } from './xlsx.js';
import { ZipPackage } from './zip.js';
import { guardFlatOdf } from './odf-guard.js';
import { convertInput, dropConverterProps, HEAD_BYTES, ooxmlMacros, precheck, readOdfPackage, type Ctx } from './shared-steps.js';

export async function parseSheet(ctx: Ctx, w: JsonWriter): Promise<ParseOutcome> {
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
    } else if (kind === 'flat-xml') {
      await guardFlatOdf(input.filePath);
      inputExt = 'fods';
    } else throw new ExtractionError('not an OpenDocument spreadsheet: it is not a ZIP package');
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
  const sheets = await writeSpreadsheet(wb, w, properties, chunkBlocks, input.within);
  if (!sheets.length) throw new ExtractionError('the workbook has no readable worksheets');
  const totalCells = sheets.reduce((a, s) => a + s.cellCount, 0);
  // Hidden sheets are emitted like the others (with their state): formulas on visible
  // sheets read them, and hiding is presentation, not deletion.
  const emptySheets = sheets.filter((s) => s.cellCount === 0).length;
  const tables = sheets.reduce((a, s) => a + s.tableCount, 0);
  const completeness = new CompletenessCounter().emitted('sheets', sheets.length, emptySheets).emitted('tables', tables);
  if (declaredSheets > sheets.length) {
    const why = `the converter read ${sheets.length} of the ${declaredSheets} worksheets this ${metadata.sourceVariant ?? format} workbook declares; the others are missing from content`;
    warnings.push(why);
    for (let i = sheets.length; i < declaredSheets; i++) completeness.missed('sheets', 'failed', why, { ...input.within });
  }
  if (needConvert && totalCells === 0) warnings.push('no cell values were read from this workbook (empty sheets, or content the converter does not support)');
  Object.assign(metadata, {
    sheetCount: sheets.length,
    hiddenSheets: sheets.filter((s) => s.state !== 'visible').map((s) => s.name),
    cellCount: totalCells,
    pageCount: { source: 'sheets', sheets: Math.max(sheets.length, declaredSheets) },
  });
  const outcome: ParseOutcome = {
    documentFormat: format,
    documentUnits: Math.max(sheets.length, declaredSheets),
    metadata,
    warnings,
    completeness: completeness.result(),
  };
  if (chunkBlocks) outcome.chunks = buildChunks(chunkBlocks);
  return outcome;
}
