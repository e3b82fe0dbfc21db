// Spreadsheet reader (XLSX/XLSM through exceljs; XLS, XLSB, ODS and Strict XLSX arrive here
// after LibreOffice converted them to XLSX). Writes every sheet with its used range, typed
// cells (number, string, boolean, date, formula with cached value, error), merged ranges
// and the hidden flag, row by row through the JsonWriter.
import ExcelJS from 'exceljs';
import type { JsonWriter } from '../kit/json-writer.js';
import type { ChunkSourceBlock } from '../chunks.js';
import { ExtractionError } from '../kit/types.js';
import type { OfficeCellT, OfficePropertiesT } from './schema.js';

export interface SheetSummary {
  name: string;
  state: 'visible' | 'hidden' | 'veryHidden';
  usedRange: string | null;
  cellCount: number;
}

export async function loadWorkbook(filePath: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.readFile(filePath, { ignoreNodes: ['dataValidations', 'conditionalFormatting', 'extLst', 'drawing', 'picture', 'legacyDrawing'] } as never);
  } catch (err) {
    throw new ExtractionError('spreadsheet unreadable: a worksheet or its shared parts are damaged or inconsistent.', 'extraction_failed', false, {
      cause: err,
    });
  }
  return wb;
}

function colName(c: number): string {
  let s = '';
  while (c > 0) {
    const m = (c - 1) % 26;
    s = String.fromCharCode(65 + m) + s;
    c = Math.floor((c - 1) / 26);
  }
  return s;
}

function isoDate(d: Date): string {
  if (Number.isNaN(d.getTime())) return String(d);
  const s = d.toISOString();
  if (s.endsWith('T00:00:00.000Z')) return s.slice(0, 10);
  return s.replace(/\.000Z$/, '').replace(/Z$/, '');
}

type Scalar = string | number | boolean | null;

function scalar(v: unknown): { value: Scalar; type: 'number' | 'string' | 'boolean' | 'date' | 'error' | 'none' } {
  if (v === null || v === undefined) return { value: null, type: 'none' };
  if (typeof v === 'number') return { value: Number.isFinite(v) ? v : String(v), type: 'number' };
  if (typeof v === 'string') return { value: v, type: 'string' };
  if (typeof v === 'boolean') return { value: v, type: 'boolean' };
  if (v instanceof Date) return { value: isoDate(v), type: 'date' };
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('error' in o) return { value: String(o.error), type: 'error' };
    if ('richText' in o && Array.isArray(o.richText)) return { value: (o.richText as { text: string }[]).map((r) => r.text).join(''), type: 'string' };
    if ('text' in o) return scalar(o.text);
  }
  return { value: String(v), type: 'string' };
}

function cellOf(cell: ExcelJS.Cell, col: number, rowNo: number): OfficeCellT | null {
  const ref = `${colName(col)}${rowNo}`;
  const out = (c: Omit<OfficeCellT, 'ref' | 'col'>): OfficeCellT => {
    const r: OfficeCellT = { ref, col, ...c };
    const fmt = cell.numFmt;
    if (fmt && fmt !== 'General') r.numFmt = String(fmt);
    return r;
  };
  const v = cell.value as unknown;
  switch (cell.type) {
    case ExcelJS.ValueType.Null:
    case ExcelJS.ValueType.Merge:
      return null;
    case ExcelJS.ValueType.Formula: {
      const fv = v as { formula?: string; sharedFormula?: string; result?: unknown };
      let formula: string;
      try {
        formula = String(cell.formula ?? fv.formula ?? fv.sharedFormula ?? '');
      } catch {
        formula = String(fv.formula ?? fv.sharedFormula ?? '');
      }
      const r = scalar(fv.result);
      return out({ type: 'formula', value: r.value, formula, resultType: r.type });
    }
    case ExcelJS.ValueType.Hyperlink: {
      const hv = v as { text?: unknown; hyperlink?: string };
      const s = scalar(hv.text);
      const c = out({ type: s.type === 'none' ? 'string' : (s.type as OfficeCellT['type']), value: s.value ?? '' });
      if (hv.hyperlink) c.hyperlink = hv.hyperlink;
      return c;
    }
    default: {
      const s = scalar(v);
      if (s.type === 'none') return null;
      return out({ type: s.type, value: s.value });
    }
  }
}

/** Writes `{kind:'spreadsheet', properties, sheets:[…]}`; returns per-sheet summaries. */
export async function writeSpreadsheet(
  wb: ExcelJS.Workbook,
  w: JsonWriter,
  properties: OfficePropertiesT,
  chunkBlocks: ChunkSourceBlock[] | null,
): Promise<SheetSummary[]> {
  const sheets: SheetSummary[] = [];
  w.beginObject().field('kind', 'spreadsheet').field('properties', properties).key('sheets').beginArray();
  let index = 0;
  for (const ws of wb.worksheets) {
    const state = (ws.state as string) === 'hidden' || (ws.state as string) === 'veryHidden' ? (ws.state as 'hidden' | 'veryHidden') : 'visible';
    w.beginObject()
      .field('index', index)
      .field('name', ws.name)
      .field('state', state)
      .field('hidden', state !== 'visible');
    // Rows first (their bounds give the used range), into the artifact as they come.
    let minR = Infinity,
      maxR = 0,
      minC = Infinity,
      maxC = 0,
      cells = 0;
    const rowsKey: { row: number; cells: OfficeCellT[] }[] = [];
    const lines: string[] = [];
    // Rows are written in batches as they are read; the used range and counts follow them.
    w.key('rows').beginArray();
    const flushRows = async (): Promise<void> => {
      for (const r of rowsKey) w.value(r);
      rowsKey.length = 0;
      await w.maybeFlush();
    };
    const last = ws.rowCount;
    for (let r = 1; r <= last; r++) {
      const row = ws.findRow(r);
      if (!row) continue;
      const rowCells: OfficeCellT[] = [];
      row.eachCell({ includeEmpty: false }, (cell, col) => {
        const c = cellOf(cell, col, r);
        if (!c) return;
        rowCells.push(c);
      });
      if (!rowCells.length) continue;
      minR = Math.min(minR, r);
      maxR = r;
      for (const c of rowCells) {
        minC = Math.min(minC, c.col);
        maxC = Math.max(maxC, c.col);
      }
      cells += rowCells.length;
      rowsKey.push({ row: r, cells: rowCells });
      if (chunkBlocks) lines.push(rowCells.map((c) => (c.value === null ? '' : String(c.value))).join('\t'));
      if (rowsKey.length >= 256) await flushRows();
    }
    await flushRows();
    w.endArray();
    const usedRange = cells ? `${colName(minC)}${minR}:${colName(maxC)}${maxR}` : null;
    const merges = mergedRanges(ws);
    w.field('usedRange', usedRange)
      .field('rowCount', cells ? maxR - minR + 1 : 0)
      .field('columnCount', cells ? maxC - minC + 1 : 0)
      .field('cellCount', cells)
      .field('mergedRanges', merges)
      .endObject();
    await w.maybeFlush();
    if (chunkBlocks) {
      chunkBlocks.push({ ref: `sheet${index}`, text: ws.name, kind: 'heading', level: 1, page: index + 1 });
      if (lines.length) chunkBlocks.push({ ref: `sheet${index}.rows`, text: lines.join('\n'), kind: 'table', page: index + 1 });
    }
    sheets.push({ name: ws.name, state, usedRange, cellCount: cells });
    index++;
  }
  w.endArray().endObject();
  return sheets;
}

function mergedRanges(ws: ExcelJS.Worksheet): string[] {
  const m = (ws as unknown as { _merges?: Record<string, { range?: string; shortRange?: string }> })._merges;
  if (!m) return [];
  return Object.values(m)
    .map((r) => r.range ?? r.shortRange ?? '')
    .filter(Boolean);
}
