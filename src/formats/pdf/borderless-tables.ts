// Borderless tables (Advanced mode): tables drawn without rules, found from how their text
// lines up. Candidate regions come from the fragments (runs of lines split into several pieces
// by wide gaps); inside a region the characters are read again as words (cell-pieces.ts), and
//  - columns are the gutters that stay empty in nearly every line of the whole region, so
//    left-, right- and decimal-aligned columns, empty cells and a header cell spanning
//    several columns (it crosses a gutter in one line only) all give the same columns;
//  - rows are baselines, a line closer to the one above than the region's usual row pitch
//    joining its row (a cell whose text wraps, the other cells set beside it);
//  - each cell holds the words of its column in its row, joined as printed, and its box.
import type { Fragment } from './fragment.js';
import type { PdfDocument } from './document.js';
import type { PageGeometry } from './textlayer.js';
import type { PdfTableT } from './schema.js';
import { r2, type BBox } from './display-units.js';
import { regionWords } from './cell-pieces.js';
import type { Word } from './word.js';
import { markHeaderRows } from './tables.js';
import { UNPLACED } from './provenance.js';

/** Words closer than this many font sizes belong to one phrase ("Prairie Brand"). */
const PHRASE_GAP = 0.35;
/** Fragments further apart than this many font sizes are separate cells (candidate lines). */
const CELL_GAP = 1.0;
/** A gutter may be crossed by this share of the region's lines (header cells spanning columns). */
const CROSSING = 0.12;
/** Cells of a table hold fewer words than this on average; columns of prose hold more. */
const PROSE_WORDS = 5;
/** A line nearer the previous one than this share of the usual row pitch joins its row. */
const WRAP_PITCH = 0.75;

interface Line<T extends { x0: number; y0: number; x1: number; y1: number }> {
  items: T[];
  y0: number;
  y1: number;
}

/** Items grouped into baselines (centre within the first item's band), top to bottom. */
function baselines<T extends { x0: number; y0: number; x1: number; y1: number }>(items: T[]): Line<T>[] {
  const sorted = [...items].sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1));
  const out: Line<T>[] = [];
  let band: [number, number] = [0, 0];
  for (const it of sorted) {
    const cy = (it.y0 + it.y1) / 2;
    const last = out[out.length - 1];
    if (last && cy >= band[0] && cy <= band[1]) {
      last.items.push(it);
      last.y0 = Math.min(last.y0, it.y0);
      last.y1 = Math.max(last.y1, it.y1);
    } else {
      out.push({ items: [it], y0: it.y0, y1: it.y1 });
      const h = it.y1 - it.y0;
      band = [cy - h * 0.4, cy + h * 0.4];
    }
  }
  for (const l of out) l.items.sort((a, b) => a.x0 - b.x0);
  return out;
}

/** Pieces of a line that sit apart by more than `gap` font sizes. */
function splitCount(line: Line<Fragment>): number {
  let n = 1;
  for (let i = 1; i < line.items.length; i++) {
    const a = line.items[i - 1],
      b = line.items[i];
    if (b.x0 - a.x1 > Math.max(a.size, b.size) * CELL_GAP) n++;
  }
  return n;
}

/** Regions holding runs of lines split into ≥ 2 pieces (≥ 3 of them, ≥ 1 with 3 pieces). */
export function candidateRegions(frags: Fragment[]): BBox[] {
  const lines = baselines(frags.filter((f) => !f.rotated && f.text.trim()));
  const out: BBox[] = [];
  let i = 0;
  while (i < lines.length) {
    if (splitCount(lines[i]) < 2) {
      i++;
      continue;
    }
    let j = i + 1,
      lastSplit = i;
    while (j < lines.length) {
      const h = lines[j].y1 - lines[j].y0;
      if (lines[j].y0 - lines[j - 1].y1 > h * 2.5) break;
      if (splitCount(lines[j]) >= 2) lastSplit = j;
      else if (j - lastSplit > 2) break; // wrapped cell text: at most two lines in a row
      j++;
    }
    const run = lines.slice(i, lastSplit + 1);
    const split = run.map(splitCount);
    const all = run.flatMap((l) => l.items);
    // Columns of prose (a three-column page) split lines too: their pieces run to many words.
    const wordsPerPiece = all.reduce((n, f) => n + f.text.trim().split(/\s+/).length, 0) / all.length;
    if (split.filter((n) => n >= 2).length >= 3 && split.some((n) => n >= 3) && wordsPerPiece <= PROSE_WORDS) {
      out.push([Math.min(...all.map((f) => f.x0)) - 1, run[0].y0 - 1, Math.max(...all.map((f) => f.x1)) + 1, run[run.length - 1].y1 + 1]);
    }
    i = lastSplit + 1;
  }
  return out;
}

/** Words joined into phrases: neighbours on a baseline closer than PHRASE_GAP font sizes. */
function phrases(line: Line<Word>): Word[] {
  const out: Word[] = [];
  for (const w of line.items) {
    const last = out[out.length - 1];
    if (last && w.x0 - last.x1 <= Math.max(w.size, last.size) * PHRASE_GAP) {
      last.text += ' ' + w.text;
      last.x1 = Math.max(last.x1, w.x1);
      last.y0 = Math.min(last.y0, w.y0);
      last.y1 = Math.max(last.y1, w.y1);
      last.size = Math.max(last.size, w.size);
    } else out.push({ ...w });
  }
  return out;
}

/**
 * Gutters: x-intervals covered by a phrase in at most CROSSING of the lines, at least `minGap`
 * wide, with text on both sides. Returned left to right as [start, end].
 */
function gutters(lines: Word[][], x0: number, x1: number, minGap: number): [number, number][] {
  const W = Math.ceil(x1 - x0) + 1;
  const cover = new Uint16Array(W);
  for (const l of lines)
    for (const p of l) {
      const a = Math.max(0, Math.ceil(p.x0 - x0)),
        b = Math.min(W - 1, Math.floor(p.x1 - x0));
      for (let k = a; k <= b; k++) cover[k]++;
    }
  const limit = Math.floor(lines.length * CROSSING);
  const out: [number, number][] = [];
  let start = -1;
  for (let k = 0; k <= W; k++) {
    const free = k < W && cover[k] <= limit;
    if (free && start < 0) start = k;
    else if (!free && start >= 0) {
      if (start > 0 && k < W && k - start >= minGap) out.push([x0 + start, x0 + k]);
      start = -1;
    }
  }
  return out;
}

/** Distances between consecutive lines' middles, and their median (the usual row pitch). */
function rowPitches(lines: Word[][]): { gaps: number[]; pitch: number } {
  const mid = lines.map((l) => (Math.min(...l.map((p) => p.y0)) + Math.max(...l.map((p) => p.y1))) / 2);
  const gaps = mid.slice(1).map((m, i) => m - mid[i]);
  return { gaps, pitch: [...gaps].sort((a, b) => a - b)[gaps.length >> 1] ?? 0 };
}

/** Tables in one candidate region from its words (none when it holds no table). */
function regionTables(words: Word[], depth = 0): Omit<PdfTableT, 'id'>[] {
  if (words.length < 6) return [];
  const lines = baselines(words).map(phrases);
  if (lines.length < 3) return [];
  const left0 = Math.min(...words.map((w) => w.x0));
  // A column of prose beside the table (its lines start at the region's left edge and run to
  // many words): its words are set aside and the rest read on its own.
  const leftmost = lines.map((l) => l[0]).filter((p) => p.x0 <= left0 + 2);
  if (depth < 2 && leftmost.filter((p) => p.text.split(' ').length >= PROSE_WORDS).length >= lines.length * 0.5) {
    const edge = Math.max(...leftmost.map((p) => p.x1));
    return regionTables(
      words.filter((w) => w.x0 > edge + 0.5),
      depth + 1,
    );
  }
  const sizes = words.map((w) => w.size).sort((a, b) => a - b);
  const size = sizes[sizes.length >> 1];
  const x0 = Math.min(...words.map((w) => w.x0)),
    x1 = Math.max(...words.map((w) => w.x1));
  // Gutters from the body lines: those with at least the usual number of phrases (lines with
  // empty cells, wrapped text, headings and spanning header cells then fit the body's columns).
  const counts = lines.map((l) => l.length).filter((n) => n >= 2);
  counts.sort((a, b) => a - b);
  const usual = counts[counts.length >> 1] ?? 2;
  const gs = gutters(
    lines.filter((l) => l.length >= usual),
    x0,
    x1,
    Math.max(2, size * PHRASE_GAP),
  );
  // Prose between two tables splits the region: a line of one phrase running across two
  // gutters, or a sentence (five words or more) standing at a row's distance from the lines
  // around it (a cell's wrapped text sits nearer its row's other lines).
  const crossing = (p: Word) => gs.filter(([a, b]) => p.x0 < a && p.x1 > b).length;
  const pitchOf = rowPitches(lines);
  const apart = (i: number) =>
    (i === 0 || pitchOf.gaps[i - 1] >= pitchOf.pitch * WRAP_PITCH) && (i === lines.length - 1 || pitchOf.gaps[i] >= pitchOf.pitch * WRAP_PITCH);
  const isCut = (l: Word[], i: number) => l.length === 1 && (crossing(l[0]) >= 2 || (l[0].text.split(' ').length >= 5 && apart(i)));
  const cuts = lines.map((l, i) => (isCut(l, i) ? i : -1)).filter((i) => i >= 0);
  if (cuts.length) {
    // The lines between cuts, each run of three or more worked out afresh (a few levels deep).
    const out: Omit<PdfTableT, 'id'>[] = [];
    let from = 0;
    for (const c of [...cuts, lines.length]) {
      const seg = lines.slice(from, c);
      from = c + 1;
      if (seg.length < 3 || depth >= 2) continue;
      const y0 = Math.min(...seg.flat().map((p) => p.y0)),
        y1 = Math.max(...seg.flat().map((p) => p.y1));
      out.push(
        ...regionTables(
          words.filter((w) => w.y0 + w.y1 > 2 * y0 && w.y0 + w.y1 < 2 * y1),
          depth + 1,
        ),
      );
    }
    return out;
  }
  const t = gridOf(lines, words, gs, x0, x1);
  return t ? [t] : [];
}

/** The table of a region's lines over the columns the gutters `gs` make; null when not a table. */
function gridOf(lines: Word[][], words: Word[], gs: [number, number][], x0: number, x1: number): Omit<PdfTableT, 'id'> | null {
  const C = gs.length + 1;
  if (C < 3) return null;
  // A phrase starts in the column right of every gutter whose middle lies left of it, and
  // spans the further gutters it crosses whole (a header over several columns).
  const colOf = (p: Word): [number, number] => {
    let a = 0;
    while (a < gs.length && (gs[a][0] + gs[a][1]) / 2 < p.x0) a++;
    let b = 0;
    while (b < gs.length && gs[b][1] <= p.x1 - 0.5) b++;
    return [a, Math.max(a, b)];
  };
  // Rows: baselines; a line much nearer the previous than the usual pitch joins its row.
  const { gaps: pitches, pitch } = rowPitches(lines);
  const rows: Word[][][] = [];
  lines.forEach((l, i) => {
    if (i > 0 && pitches[i - 1] < pitch * WRAP_PITCH) rows[rows.length - 1].push(l);
    else rows.push([l]);
  });
  if (rows.length < 3) return null;
  const bounds: number[] = [x0, ...gs.map(([a, b]) => (a + b) / 2), x1];
  const cells: PdfTableT['cells'] = [];
  let filledRows = 0,
    wordsInCells = 0,
    nonEmpty = 0;
  rows.forEach((rowLines, r) => {
    const ps = rowLines.flat();
    const ry0 = Math.min(...ps.map((p) => p.y0)),
      ry1 = Math.max(...ps.map((p) => p.y1));
    // Spans: a phrase crossing gutters joins those columns into one cell for this row.
    const owner = Array.from({ length: C }, (_, c) => c);
    const placed = ps.map((p) => ({ p, span: colOf(p) }));
    for (const { span } of placed) for (let c = span[0] + 1; c <= span[1]; c++) owner[c] = owner[span[0]];
    for (let c = 1; c < C; c++) owner[c] = owner[owner[c]];
    const byCell = new Map<number, Word[][]>();
    for (const l of rowLines)
      for (const p of l) {
        const k = owner[colOf(p)[0]];
        let list = byCell.get(k);
        if (!list) byCell.set(k, (list = []));
        // One entry per line of the cell, words left to right.
        const last = list[list.length - 1];
        if (last && last[0] && Math.abs(last[0].y0 + last[0].y1 - p.y0 - p.y1) < p.size * 0.8) last.push(p);
        else list.push([p]);
      }
    let filled = 0;
    for (let c = 0; c < C; c++) {
      if (owner[c] !== c) continue;
      let c1 = c;
      while (c1 + 1 < C && owner[c1 + 1] === c) c1++;
      const ls = byCell.get(c) ?? [];
      const text = ls.map((l) => l.map((p) => p.text).join(' ')).join(' ');
      if (text) {
        filled++;
        nonEmpty++;
        wordsInCells += text.split(' ').length;
      }
      const cell = {
        row: r,
        col: c,
        rowSpan: 1,
        colSpan: c1 - c + 1,
        text,
        bbox: [r2(bounds[c]), r2(ry0), r2(bounds[c1 + 1]), r2(ry1)] as BBox,
        provenance: UNPLACED,
      };
      cells.push(cell);
    }
    if (filled >= 2) filledRows++;
  });
  // A table has most rows filled in two or more cells, and short cells (not columns of prose).
  if (filledRows < rows.length * 0.5 || wordsInCells / Math.max(1, nonEmpty) > PROSE_WORDS + 1) return null;
  const y0 = Math.min(...words.map((w) => w.y0)),
    y1 = Math.max(...words.map((w) => w.y1));
  return { bbox: [r2(x0), r2(y0), r2(x1), r2(y1)], rows: rows.length, columns: C, ruled: false, source: 'alignment', cells, provenance: UNPLACED };
}

/**
 * Borderless tables on a page: `frags` are the page's fragments (in `frame`), `ruled` the
 * ruled tables already found (their text is theirs); ids continue from `first`; `textPage`
 * the page's text page if open.
 */
export function borderlessTables(
  doc: PdfDocument,
  page: number,
  frame: PageGeometry,
  frags: Fragment[],
  ruled: PdfTableT[],
  pageNo: number,
  first: number,
  textPage?: number,
): PdfTableT[] {
  const inRuled = (f: Fragment) =>
    ruled.some((t) => (f.x0 + f.x1) / 2 >= t.bbox[0] && (f.x0 + f.x1) / 2 <= t.bbox[2] && (f.y0 + f.y1) / 2 >= t.bbox[1] && (f.y0 + f.y1) / 2 <= t.bbox[3]);
  const free = frags.filter((f) => !inRuled(f));
  const regions = candidateRegions(free);
  if (!regions.length) return [];
  const words = regionWords(doc, page, frame, regions, textPage);
  const out: PdfTableT[] = [];
  regions.forEach((_, k) => {
    for (const t of regionTables(words[k])) {
      // Header rows by bold type: the words carry no font, the fragments in each cell's box do
      // (each fragment placed by its centre: rows, then the cells of its row).
      const boldIn = new Map<PdfTableT['cells'][number], Fragment[]>();
      const byRow: PdfTableT['cells'][] = Array.from({ length: t.rows }, () => []);
      for (const c of t.cells) byRow[c.row].push(c);
      for (const f of free) {
        const cx = (f.x0 + f.x1) / 2,
          cy = (f.y0 + f.y1) / 2;
        if (cx < t.bbox[0] || cx > t.bbox[2] || cy < t.bbox[1] || cy > t.bbox[3]) continue;
        const row = byRow.find((cs) => cs.length && cy >= cs[0].bbox[1] && cy <= cs[0].bbox[3]);
        const cell = row?.find((c) => cx >= c.bbox[0] && cx <= c.bbox[2]);
        if (!cell) continue;
        const list = boldIn.get(cell);
        if (list) list.push(f);
        else boldIn.set(cell, [f]);
      }
      markHeaderRows(t.cells, boldIn, t.rows);
      t.cells.sort((p, q) => p.row - q.row || p.col - q.col);
      out.push({ ...t, id: `p${pageNo}.t${first + out.length}` });
    }
  });
  return out;
}
