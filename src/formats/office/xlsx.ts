// Spreadsheet reader (XLSX/XLSM through exceljs; XLS, XLSB, ODS and Strict XLSX arrive here
// after LibreOffice converted them to XLSX). Writes every sheet with its used range, typed
// cells (number, string, boolean, date, formula with cached value, error), merged ranges
// (spans on their top-left cell; the cells they cover are not repeated), Excel tables and the
// hidden flag, row by row through the JsonWriter.
import ExcelJS from 'exceljs';
import type { JsonWriter } from '../kit/json-writer.js';
import { DEFAULT_CHUNK_TOKENS, type ChunkSourceBlock } from '../chunks.js';
import { ExtractionError } from '../kit/types.js';
import type { Provenance } from '../kit/provenance.js';
import { cellName } from '../kit/provenance-merge.js';
import type { OfficeCellT, OfficePropertiesT, OfficeSheetTableT } from './schema.js';

export interface SheetSummary {
  name: string;
  state: 'visible' | 'hidden' | 'veryHidden';
  usedRange: string | null;
  cellCount: number;
  tableCount: number;
}

/**
 * Rows of a sheet are joined into chunk blocks of up to half a chunk's text, so the sheet's
 * heading and its first block share a chunk.
 */
const CHUNK_BLOCK_CHARS = DEFAULT_CHUNK_TOKENS * 2;

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
  const ref = cellName(col, rowNo);
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
  within: Provenance = {},
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
    const spans = mergeSpans(ws);
    const place: Provenance = { ...within, sheet: ws.name };
    const heading: ChunkSourceBlock | null = chunkBlocks ? { ref: `sheet${index}`, text: ws.name, kind: 'heading', level: 1, page: index + 1 } : null;
    if (heading) chunkBlocks?.push(heading);
    const chunkRows = chunkBlocks ? new RowChunker(chunkBlocks, `sheet${index}.rows`, place, index + 1) : null;
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
        const span = spans.get(c.ref);
        if (span) Object.assign(c, span);
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
      chunkRows?.add(r, rowCells);
      if (rowsKey.length >= 256) await flushRows();
    }
    await flushRows();
    w.endArray();
    const usedRange = cells ? `${cellName(minC, minR)}:${cellName(maxC, maxR)}` : null;
    const tables = sheetTables(ws, place);
    w.field('usedRange', usedRange)
      .field('rowCount', cells ? maxR - minR + 1 : 0)
      .field('columnCount', cells ? maxC - minC + 1 : 0)
      .field('cellCount', cells)
      .field('mergedRanges', mergedRanges(ws))
      .field('tables', tables)
      .field('provenance', usedRange ? { ...place, range: usedRange } : place)
      .endObject();
    await w.maybeFlush();
    chunkRows?.flush();
    // A sheet without cells is placed by its name alone; otherwise its row blocks place it.
    if (heading && !cells) heading.provenance = place;
    sheets.push({ name: ws.name, state, usedRange, cellCount: cells, tableCount: tables.length });
    index++;
  }
  w.endArray().endObject();
  return sheets;
}

type Merge = { range?: string; shortRange?: string; model?: { top: number; left: number; bottom: number; right: number } };

function merges(ws: ExcelJS.Worksheet): Merge[] {
  const m = (ws as unknown as { _merges?: Record<string, Merge> })._merges;
  return m ? Object.values(m) : [];
}

function mergedRanges(ws: ExcelJS.Worksheet): string[] {
  return merges(ws)
    .map((r) => r.range ?? r.shortRange ?? '')
    .filter(Boolean);
}

/** The span of each merged range, keyed by its top-left cell (the one that holds the value). */
function mergeSpans(ws: ExcelJS.Worksheet): Map<string, { rowSpan: number; colSpan: number }> {
  const out = new Map<string, { rowSpan: number; colSpan: number }>();
  for (const { model: m } of merges(ws)) {
    if (m) out.set(cellName(m.left, m.top), { rowSpan: m.bottom - m.top + 1, colSpan: m.right - m.left + 1 });
  }
  return out;
}

/** Excel tables (ListObjects) of the sheet, as their parts define them. */
function sheetTables(ws: ExcelJS.Worksheet, sheet: Provenance): OfficeSheetTableT[] {
  const out: OfficeSheetTableT[] = [];
  for (const t of ws.getTables() as unknown as {
    table?: { name?: string; tableRef?: string; headerRow?: boolean; totalsRow?: boolean; columns?: { name?: string }[] };
  }[]) {
    const d = t.table;
    if (!d?.tableRef) continue;
    out.push({
      name: d.name ?? '',
      range: d.tableRef,
      headerRow: d.headerRow !== false,
      totalsRow: d.totalsRow === true,
      columns: (d.columns ?? []).map((c) => c.name ?? ''),
      provenance: { ...sheet, range: d.tableRef },
    });
  }
  return out;
}

/**
 * A sheet's rows as chunk blocks of about a chunk's text each, every block with the range of
 * its rows, so a chunk says which rows it holds (one block per sheet would give every chunk
 * of a long sheet the whole used range).
 */
class RowChunker {
  private lines: string[] = [];
  private chars = 0;
  private first = 0;
  private last = 0;
  private minCol = Infinity;
  private maxCol = 0;

  constructor(
    private readonly out: ChunkSourceBlock[],
    private readonly ref: string,
    private readonly sheet: Provenance,
    private readonly page: number,
  ) {}

  add(row: number, cells: OfficeCellT[]): void {
    const line = cells.map((c) => (c.value === null ? '' : String(c.value))).join('\t');
    if (this.lines.length && this.chars + line.length > CHUNK_BLOCK_CHARS) this.flushBlock();
    if (!this.lines.length) this.first = row;
    this.lines.push(line);
    this.chars += line.length + 1;
    this.last = row;
    for (const c of cells) {
      this.minCol = Math.min(this.minCol, c.col);
      this.maxCol = Math.max(this.maxCol, c.col + (c.colSpan ?? 1) - 1);
    }
  }

  /** Writes the last block. */
  flush(): void {
    this.flushBlock();
  }

  private flushBlock(): void {
    if (!this.lines.length) return;
    const range = `${cellName(this.minCol, this.first)}:${cellName(this.maxCol, this.last)}`;
    this.out.push({
      ref: `${this.ref}.${this.first}-${this.last}`,
      text: this.lines.join('\n'),
      kind: 'table',
      page: this.page,
      provenance: { ...this.sheet, range },
    });
    this.lines = [];
    this.chars = 0;
    this.minCol = Infinity;
    this.maxCol = 0;
  }
}
