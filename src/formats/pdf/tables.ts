// Advanced-mode ruled tables on one page, from the grid the page's rules form (cells with
// row/column spans, header rows), and what ruled and borderless tables share: header rows by
// bold type, the repeated header of a continued table. Pure geometry over fragments and
// segments; it reads nothing from PDFium. Borderless tables: borderless-tables.ts.
import type { Fragment } from './fragment.js';
import { regionLines } from './layout.js';
import type { PdfTableT } from './schema.js';
import { r2, type BBox } from './display-units.js';
import { TOL, type Seg } from './page-objects.js';
import { UNPLACED } from './provenance.js';

function cluster(values: number[]): number[] {
  const s = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of s) if (!out.length || v - out[out.length - 1] > TOL * 1.5) out.push(v);
  return out;
}

function covered(segs: Seg[], pos: number, a: number, b: number): boolean {
  const need = b - a;
  if (need <= 0) return true;
  let got = 0;
  for (const s of segs) {
    if (Math.abs(s.pos - pos) > TOL) continue;
    const lo = Math.max(a, s.a),
      hi = Math.min(b, s.b);
    if (hi > lo) got += hi - lo;
  }
  return got >= need * 0.6;
}

/** The rules covered() would look at for position `pos` (same order). */
function rulesAt(segs: Seg[], pos: number): Seg[] {
  return segs.filter((s) => !(Math.abs(s.pos - pos) > TOL));
}

/** Ruled tables: connected groups of horizontal and vertical rules forming a grid. */
export function ruledTables(h: Seg[], v: Seg[], frags: Fragment[], pageNo: number): PdfTableT[] {
  // Connected components of intersecting segments.
  const all = [...h.map((s) => ({ s, hz: true })), ...v.map((s) => ({ s, hz: false }))];
  const parent = all.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  // Each horizontal rule against the vertical rules whose x lies within its reach (sorted by
  // x, binary search): the same components as testing every pair.
  const vIdx: number[] = [];
  for (let j = 0; j < all.length; j++) if (!all[j].hz && !Number.isNaN(all[j].s.pos)) vIdx.push(j); // NaN never intersects
  vIdx.sort((p, q) => all[p].s.pos - all[q].s.pos);
  for (let i = 0; i < all.length; i++) {
    if (!all[i].hz) continue;
    const a = all[i].s;
    const lo = a.a - TOL,
      hi = a.b + TOL;
    let k0 = 0,
      k1 = vIdx.length;
    while (k0 < k1) {
      const mid = (k0 + k1) >> 1;
      if (all[vIdx[mid]].s.pos < lo) k0 = mid + 1;
      else k1 = mid;
    }
    for (let k = k0; k < vIdx.length; k++) {
      const j = vIdx[k];
      const b = all[j].s;
      if (b.pos > hi) break;
      if (b.pos >= lo && a.pos >= b.a - TOL && a.pos <= b.b + TOL) parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, { h: Seg[]; v: Seg[] }>();
  all.forEach((e, i) => {
    const r = find(i);
    let g = groups.get(r);
    if (!g) groups.set(r, (g = { h: [], v: [] }));
    (e.hz ? g.h : g.v).push(e.s);
  });
  const tables: PdfTableT[] = [];
  for (const g of groups.values()) {
    if (g.h.length < 2 || g.v.length < 2) continue;
    let ys = cluster(g.h.map((s) => s.pos));
    const xs = cluster(g.v.map((s) => s.pos));
    if (ys.length < 2 || xs.length < 2) continue;
    // Rows ruled only every few lines (grouped data rows): split a ruled band at the text
    // lines when most of its non-empty cells hold the same number of lines.
    {
      const extra: number[] = [];
      const tb0: BBox = [xs[0], ys[0], xs[xs.length - 1], ys[ys.length - 1]];
      const inT = frags.filter((fr) => (fr.x0 + fr.x1) / 2 >= tb0[0] && (fr.x0 + fr.x1) / 2 <= tb0[2]);
      for (let r = 0; r + 1 < ys.length; r++) {
        const band = inT.filter((fr) => (fr.y0 + fr.y1) / 2 > ys[r] && (fr.y0 + fr.y1) / 2 < ys[r + 1]);
        if (band.length < 4) continue;
        const lines = cluster(band.map((fr) => (fr.y0 + fr.y1) / 2));
        if (lines.length < 2) continue;
        let multi = 0,
          nonEmpty = 0;
        for (let c = 0; c + 1 < xs.length; c++) {
          const cf = band.filter((fr) => (fr.x0 + fr.x1) / 2 > xs[c] && (fr.x0 + fr.x1) / 2 < xs[c + 1]);
          if (!cf.length) continue;
          nonEmpty++;
          if (cluster(cf.map((fr) => (fr.y0 + fr.y1) / 2)).length === lines.length) multi++;
        }
        if (nonEmpty < 2 || multi < nonEmpty * 0.6) continue;
        for (let k = 0; k + 1 < lines.length; k++) {
          const upper = band.filter((fr) => Math.abs((fr.y0 + fr.y1) / 2 - lines[k]) <= TOL * 1.5);
          const lower = band.filter((fr) => Math.abs((fr.y0 + fr.y1) / 2 - lines[k + 1]) <= TOL * 1.5);
          if (!upper.length || !lower.length) continue;
          const cut = (Math.max(...upper.map((f) => f.y1)) + Math.min(...lower.map((f) => f.y0))) / 2;
          extra.push(cut);
        }
      }
      if (extra.length) {
        for (const y of extra) g.h.push({ pos: y, a: xs[0], b: xs[xs.length - 1] });
        ys = cluster([...ys, ...extra]);
      }
    }
    const R = ys.length - 1,
      C = xs.length - 1;
    if (R * C < 2 || R * C > 20000) continue;
    // Union cells across missing inner rules → spans.
    const id = (r: number, c: number) => r * C + c;
    const up = Array.from({ length: R * C }, (_, i) => i);
    const f = (i: number): number => (up[i] === i ? i : (up[i] = f(up[i])));
    // Text per grid cell (by fragment centre), and whether a fragment crosses a boundary.
    const gridText = new Map<number, Fragment[]>();
    const tb: BBox = [xs[0], ys[0], xs[C], ys[R]];
    const inGrid = frags.filter((fr) => {
      const cx = (fr.x0 + fr.x1) / 2,
        cy = (fr.y0 + fr.y1) / 2;
      return cx >= tb[0] && cx <= tb[2] && cy >= tb[1] && cy <= tb[3];
    });
    // A grid with no text in it is a drawing, not a table (unless it is big enough to be a form).
    if (!inGrid.length) continue;
    /** Grid cell of each inGrid fragment (same index). */
    const cellOf: number[] = [];
    for (const fr of inGrid) {
      const cx = (fr.x0 + fr.x1) / 2,
        cy = (fr.y0 + fr.y1) / 2;
      let c = 0;
      while (c < C - 1 && cx > xs[c + 1]) c++;
      let r = 0;
      while (r < R - 1 && cy > ys[r + 1]) r++;
      const k = id(r, c);
      cellOf.push(k);
      const l = gridText.get(k);
      if (l) l.push(fr);
      else gridText.set(k, [fr]);
    }
    // Fragments by grid row / column band (centre strictly inside), and rules by position:
    // computed once instead of rescanning for every cell.
    const rowFr: Fragment[][] = [],
      colFr: Fragment[][] = [];
    const inRow = (r: number) => (rowFr[r] ??= inGrid.filter((fr) => (fr.y0 + fr.y1) / 2 > ys[r] && (fr.y0 + fr.y1) / 2 < ys[r + 1]));
    const inCol = (c: number) => (colFr[c] ??= inGrid.filter((fr) => (fr.x0 + fr.x1) / 2 > xs[c] && (fr.x0 + fr.x1) / 2 < xs[c + 1]));
    const crossesX = (r: number, x: number) => inRow(r).some((fr) => fr.x0 < x - 1 && fr.x1 > x + 1);
    const crossesY = (c: number, y: number) => inCol(c).some((fr) => fr.y0 < y - 1 && fr.y1 > y + 1);
    const vAt: Seg[][] = [],
      hAt: Seg[][] = [];
    const vRules = (c: number) => (vAt[c] ??= rulesAt(g.v, xs[c]));
    const hRules = (r: number) => (hAt[r] ??= rulesAt(g.h, ys[r]));
    // Merge neighbours across a missing rule, unless both hold text that stays on its own side
    // (columns ruled only in the header, rows ruled only every few lines).
    for (let r = 0; r < R; r++)
      for (let c = 0; c < C; c++) {
        if (c + 1 < C && !covered(vRules(c + 1), xs[c + 1], ys[r], ys[r + 1])) {
          const split = gridText.has(id(r, c)) && gridText.has(id(r, c + 1)) && !crossesX(r, xs[c + 1]);
          if (!split) up[f(id(r, c + 1))] = f(id(r, c));
        }
        if (r + 1 < R && !covered(hRules(r + 1), ys[r + 1], xs[c], xs[c + 1])) {
          const split = gridText.has(id(r, c)) && gridText.has(id(r + 1, c)) && !crossesY(c, ys[r + 1]);
          if (!split) up[f(id(r + 1, c))] = f(id(r, c));
        }
      }
    // A merged region must be a rectangle: split non-rectangular unions back into cells.
    {
      const members = new Map<number, number[]>();
      for (let k = 0; k < R * C; k++) {
        const root = f(k);
        const m = members.get(root);
        if (m) m.push(k);
        else members.set(root, [k]);
      }
      for (const ks of members.values()) {
        const rs = ks.map((k) => Math.floor(k / C)),
          cs = ks.map((k) => k % C);
        const area = (Math.max(...rs) - Math.min(...rs) + 1) * (Math.max(...cs) - Math.min(...cs) + 1);
        if (area !== ks.length) for (const k of ks) up[k] = k;
      }
    }
    const boxes = new Map<number, { r0: number; c0: number; r1: number; c1: number }>();
    for (let r = 0; r < R; r++)
      for (let c = 0; c < C; c++) {
        const k = f(id(r, c));
        const b = boxes.get(k);
        if (!b) boxes.set(k, { r0: r, c0: c, r1: r, c1: c });
        else {
          b.r0 = Math.min(b.r0, r);
          b.c0 = Math.min(b.c0, c);
          b.r1 = Math.max(b.r1, r);
          b.c1 = Math.max(b.c1, c);
        }
      }
    // Fragments per merged cell (root), in page order.
    const cellFrags = new Map<number, Fragment[]>();
    inGrid.forEach((fr, i) => {
      const k = f(cellOf[i]);
      let list = cellFrags.get(k);
      if (!list) cellFrags.set(k, (list = []));
      list.push(fr);
    });
    const cells: PdfTableT['cells'] = [];
    const cellFragments = new Map<PdfTableT['cells'][number], Fragment[]>();
    for (const [k, b] of boxes) {
      const fs = cellFrags.get(k) ?? [];
      const text = regionLines(fs)
        .map((l) => l.text)
        .join(' ')
        .trim();
      const cell = {
        row: b.r0,
        col: b.c0,
        rowSpan: b.r1 - b.r0 + 1,
        colSpan: b.c1 - b.c0 + 1,
        text,
        bbox: [r2(xs[b.c0]), r2(ys[b.r0]), r2(xs[b.c1 + 1]), r2(ys[b.r1 + 1])] as BBox,
        provenance: UNPLACED,
      };
      cells.push(cell);
      cellFragments.set(cell, fs);
    }
    // Single-cell "tables" (a box around a paragraph) are frames, not tables; so are boxes
    // (shading, highlight frames) whose cells each hold a row of several columns' values.
    if (cells.length < 2 || holdsColumns(cells, cellFragments)) continue;
    markHeaderRows(cells, cellFragments, R);
    cells.sort((p, q) => p.row - q.row || p.col - q.col);
    tables.push({ id: '', bbox: tb.map(r2) as BBox, rows: R, columns: C, ruled: true, source: 'ruling', cells, provenance: UNPLACED });
  }
  tables.sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  tables.forEach((t, i) => (t.id = `p${pageNo}.t${i}`));
  return tables;
}

/**
 * True when most non-empty cells hold a line of three or more pieces set wide apart: the
 * rules box rows of a borderless table rather than drawing its cells.
 */
function holdsColumns(cells: PdfTableT['cells'], fragments: Map<PdfTableT['cells'][number], Fragment[]>): boolean {
  let nonEmpty = 0,
    wide = 0;
  for (const c of cells) {
    const fs = (fragments.get(c) ?? []).filter((f) => f.text.trim());
    if (!fs.length) continue;
    nonEmpty++;
    const byLine = new Map<number, Fragment[]>();
    for (const f of fs) {
      const k = Math.round((f.y0 + f.y1) / 2 / Math.max(1, f.size));
      const l = byLine.get(k);
      if (l) l.push(f);
      else byLine.set(k, [f]);
    }
    for (const l of byLine.values()) {
      l.sort((a, b) => a.x0 - b.x0);
      let pieces = 1;
      for (let i = 1; i < l.length; i++) if (l[i].x0 - l[i - 1].x1 > Math.max(l[i].size, l[i - 1].size) * 1.5) pieces++;
      if (pieces >= 3) {
        wide++;
        break;
      }
    }
  }
  return nonEmpty > 0 && wide >= nonEmpty * 0.5;
}

/**
 * Marks header cells (`header: true`): the table's leading rows, at most 3, whose text is all
 * bold while the next row's is not — the usual way a header row is set. A cell counts in every
 * row it spans, and only cells lying wholly inside the header rows are marked (a bold cell
 * merged down into the body is not). A table set entirely in bold, or with no bold, gets none;
 * so does a header told apart only by shading or rules.
 */
export function markHeaderRows(cells: PdfTableT['cells'], fragments: Map<PdfTableT['cells'][number], Fragment[]>, rows: number): void {
  // Per row: true when every non-empty cell covering it is bold, null when the row is empty.
  const rowBold: (boolean | null)[] = Array.from({ length: rows }, () => null);
  for (const cell of cells) {
    const fs = (fragments.get(cell) ?? []).filter((f) => f.text.trim());
    if (!fs.length) continue;
    const bold = fs.every((f) => f.bold);
    for (let r = cell.row; r < Math.min(rows, cell.row + cell.rowSpan); r++) rowBold[r] = (rowBold[r] ?? true) && bold;
  }
  let h = 0;
  while (h < Math.min(3, rows - 1) && rowBold[h] === true) h++;
  if (h === 0 || rowBold[h] !== false) return;
  for (const cell of cells) if (cell.row + cell.rowSpan <= h) cell.header = true;
}

/**
 * A table continued from the previous page often repeats its header rows at the top: those
 * leading rows (at most 3, fewer than the table has) whose cell texts equal the head table's
 * first rows are dropped, so that the continued table reads as one. Ruled and unruled alike.
 */
export function dropRepeatedHeader(t: PdfTableT, head: PdfTableT): void {
  const rowTexts = (x: PdfTableT, r: number) =>
    x.cells
      .filter((c) => c.row === r)
      .sort((a, b) => a.col - b.col)
      .map((c) => `${c.col}:${c.colSpan}:${c.text.replace(/\s+/g, ' ').trim()}`)
      .join('|');
  let k = 0;
  while (k < Math.min(3, t.rows - 1, head.rows) && t.cells.some((c) => c.row === k && c.text) && rowTexts(t, k) === rowTexts(head, k)) k++;
  // Only whole rows: a cell spanning down out of the repeated rows keeps them.
  if (!k || t.cells.some((c) => c.row < k && c.row + c.rowSpan > k)) return;
  t.cells = t.cells.filter((c) => c.row >= k);
  for (const c of t.cells) c.row -= k;
  t.rows -= k;
  t.bbox = [t.bbox[0], Math.min(...t.cells.map((c) => c.bbox[1])), t.bbox[2], t.bbox[3]];
}
