// Office and OpenDocument family: docx, doc, odt, rtf (documents), xlsx, xls, ods
// (spreadsheets), pptx, ppt, odp (presentations).
//
// OOXML packages are read directly (guarded ZIP + XML). Legacy binaries, RTF and
// OpenDocument files go through LibreOffice headless to OOXML and are then read by the same
// readers. Document Units: word-processing documents count rendered pages (LibreOffice →
// PDF; the stored page count is reported beside it and used only as a fallback when
// rendering is unavailable), presentations count slides, spreadsheets count sheets.
//
// This module is the family's entry: it dispatches each format to its flow (documents.ts,
// spreadsheets.ts, presentations.ts) and turns unexpected failures into extraction errors.
import fs from 'node:fs/promises';
import path from 'node:path';
import { ExtractionError, type FormatParser, type ParseInput } from '../kit/types.js';
import type { Ctx, OfficeFormat } from './shared-steps.js';

// Each flow is loaded when its first document comes: a thread's first RTF does not wait for
// exceljs (spreadsheets), and a refusal before LibreOffice stays a matter of milliseconds.
const flows = {
  word: async () => (await import('./documents.js')).parseWord,
  sheet: async () => (await import('./spreadsheets.js')).parseSheet,
  slides: async () => (await import('./presentations.js')).parseSlides,
};

const WORD: ReadonlySet<string> = new Set(['docx', 'doc', 'odt', 'rtf']);
const SHEET: ReadonlySet<string> = new Set(['xlsx', 'xls', 'ods']);

async function workDir(input: ParseInput): Promise<string> {
  const d = path.join(input.tempDir, `office-${Math.random().toString(36).slice(2, 8)}`);
  await fs.mkdir(d, { recursive: true });
  return d;
}

export function officeParser(format: OfficeFormat): FormatParser {
  return async (input, content) => {
    const ctx: Ctx = { input, format, warnings: [], metadata: { sourceFormat: format }, work: await workDir(input) };
    try {
      const flow = await (WORD.has(format) ? flows.word : SHEET.has(format) ? flows.sheet : flows.slides)();
      return await flow(ctx, content);
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
