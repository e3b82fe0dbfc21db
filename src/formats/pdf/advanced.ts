// Advanced mode extras per page: ruled tables from path segments (cells with row/column
// spans), unruled tables from text alignment, form field values, annotations and links,
// image positions.
import type { PdfDocument } from './document.js';
import type { Fragment } from './fragment.js';
import { frameToDisplay, toDisplay, type PageGeometry } from './textlayer.js';
import { regionLines, type RawBlock } from './layout.js';
import type { PdfPageT, PdfTableT } from './schema.js';

export interface AdvancedExtras {
  page: Partial<PdfPageT>;
  tables: PdfTableT[];
}

type BBox = [number, number, number, number];
interface Seg {
  /** Horizontal: y fixed, x from a to b. Vertical: x fixed, y from a to b. */
  pos: number;
  a: number;
  b: number;
}

const FPDF_PAGEOBJ_PATH = 2;
const FPDF_PAGEOBJ_IMAGE = 3;
const FPDF_PAGEOBJ_FORM = 5;
const SEG_LINETO = 0;
const SEG_MOVETO = 2;
const TOL = 2;

function r2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Collects axis-aligned line segments (display space) of path objects, one form XObject level deep. */
function rulingSegments(doc: PdfDocument, page: number, g: PageGeometry, images: Partial<PdfPageT>['images']): { h: Seg[]; v: Seg[] } {
  const { ex } = doc.p;
  const s = doc.scratch;
  const h: Seg[] = [];
  const v: Seg[] = [];
  const addLine = (x0: number, y0: number, x1: number, y1: number) => {
    const [ax, ay] = toDisplay(g, x0, y0);
    const [bx, by] = toDisplay(g, x1, y1);
    if (Math.abs(ay - by) < 1 && Math.abs(ax - bx) >= 3) h.push({ pos: (ay + by) / 2, a: Math.min(ax, bx), b: Math.max(ax, bx) });
    else if (Math.abs(ax - bx) < 1 && Math.abs(ay - by) >= 3) v.push({ pos: (ax + bx) / 2, a: Math.min(ay, by), b: Math.max(ay, by) });
  };
  const visit = (obj: number, parent: number[] | null, depth: number) => {
    const type = ex.FPDFPageObj_GetType(obj);
    if (type === FPDF_PAGEOBJ_FORM && depth < 2) {
      const n = ex.FPDFFormObj_CountObjects(obj);
      let m: number[] | null = null;
      if (ex.FPDFPageObj_GetMatrix(obj, s.ptr)) m = [s.f32(0), s.f32(1), s.f32(2), s.f32(3), s.f32(4), s.f32(5)];
      const pm = parent && m ? mul(m, parent) : (m ?? parent);
      for (let k = 0; k < n && k < 20000; k++) visit(ex.FPDFFormObj_GetObject(obj, k), pm, depth + 1);
      return;
    }
    if (type === FPDF_PAGEOBJ_IMAGE && images && depth === 0) {
      if (ex.FPDFPageObj_GetBounds(obj, s.ptr, s.ptr + 4, s.ptr + 8, s.ptr + 12)) {
        const [ax, ay] = toDisplay(g, s.f32(0), s.f32(1));
        const [bx, by] = toDisplay(g, s.f32(2), s.f32(3));
        let pw = 0,
          ph = 0;
        if (ex.FPDFImageObj_GetImagePixelSize(obj, s.ptr + 16, s.ptr + 20)) {
          pw = doc.p.M.HEAPU32[(s.ptr + 16) >> 2];
          ph = doc.p.M.HEAPU32[(s.ptr + 20) >> 2];
        }
        const filters: string[] = [];
        const nf = ex.FPDFImageObj_GetImageFilterCount(obj);
        for (let f = 0; f < nf && f < 8; f++) {
          const need = ex.FPDFImageObj_GetImageFilter(obj, f, 0, 0);
          if (need > 1) {
            const buf = ex.malloc(need);
            ex.FPDFImageObj_GetImageFilter(obj, f, buf, need);
            filters.push(doc.p.M.UTF8ToString(buf));
            ex.free(buf);
          }
        }
        images.push({
          bbox: [r2(Math.min(ax, bx)), r2(Math.min(ay, by)), r2(Math.max(ax, bx)), r2(Math.max(ay, by))],
          pixelWidth: pw,
          pixelHeight: ph,
          filters,
        });
      }
      return;
    }
    if (type !== FPDF_PAGEOBJ_PATH) return;
    const nseg = ex.FPDFPath_CountSegments(obj);
    if (nseg <= 0 || nseg > 5000) return;
    let m = [1, 0, 0, 1, 0, 0];
    if (ex.FPDFPageObj_GetMatrix(obj, s.ptr)) m = [s.f32(0), s.f32(1), s.f32(2), s.f32(3), s.f32(4), s.f32(5)];
    if (parent) m = mul(m, parent);
    const tx = (x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
    // Thin filled rectangles drawn as rules: treat the whole path's bounds as one line.
    if (ex.FPDFPageObj_GetBounds(obj, s.ptr, s.ptr + 4, s.ptr + 8, s.ptr + 12)) {
      const l = s.f32(0),
        b = s.f32(1),
        r = s.f32(2),
        t = s.f32(3);
      if (nseg <= 6 && (r - l < 2.5 || t - b < 2.5)) {
        if (r - l < 2.5) addLine((l + r) / 2, b, (l + r) / 2, t);
        else addLine(l, (b + t) / 2, r, (b + t) / 2);
        return;
      }
    }
    let sx = 0,
      sy = 0,
      cx = 0,
      cy = 0;
    for (let k = 0; k < nseg; k++) {
      const seg = ex.FPDFPath_GetPathSegment(obj, k);
      if (!seg || !ex.FPDFPathSegment_GetPoint(seg, s.ptr, s.ptr + 4)) continue;
      const [x, y] = tx(s.f32(0), s.f32(1));
      const st = ex.FPDFPathSegment_GetType(seg);
      if (st === SEG_MOVETO) {
        sx = cx = x;
        sy = cy = y;
      } else {
        // Only straight segments are rules; a Bézier segment just moves the current point.
        if (st === SEG_LINETO) addLine(cx, cy, x, y);
        cx = x;
        cy = y;
        if (ex.FPDFPathSegment_GetClose(seg)) {
          addLine(cx, cy, sx, sy);
          cx = sx;
          cy = sy;
        }
      }
    }
  };
  const n = ex.FPDFPage_CountObjects(page);
  for (let k = 0; k < n && k < 50000; k++) visit(ex.FPDFPage_GetObject(page, k), null, 0);
  return { h: mergeSegs(h), v: mergeSegs(v) };
}

function mul(a: number[], b: number[]): number[] {
  return [
    a[0] * b[0] + a[1] * b[2],
    a[0] * b[1] + a[1] * b[3],
    a[2] * b[0] + a[3] * b[2],
    a[2] * b[1] + a[3] * b[3],
    a[4] * b[0] + a[5] * b[2] + b[4],
    a[4] * b[1] + a[5] * b[3] + b[5],
  ];
}

/** Joins collinear overlapping/touching segments. */
function mergeSegs(segs: Seg[]): Seg[] {
  segs.sort((p, q) => p.pos - q.pos || p.a - q.a);
  const out: Seg[] = [];
  for (const s of segs) {
    const last = out[out.length - 1];
    if (last && Math.abs(last.pos - s.pos) <= 1 && s.a <= last.b + TOL) {
      last.b = Math.max(last.b, s.b);
      continue;
    }
    // Look back a little for a collinear run (segments sorted by pos then start).
    let merged = false;
    for (let k = out.length - 1; k >= 0 && k >= out.length - 8; k--) {
      const o = out[k];
      if (Math.abs(o.pos - s.pos) <= 1 && s.a <= o.b + TOL && s.b >= o.a - TOL) {
        o.a = Math.min(o.a, s.a);
        o.b = Math.max(o.b, s.b);
        merged = true;
        break;
      }
    }
    if (!merged) out.push({ ...s });
  }
  return out;
}

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
function ruledTables(h: Seg[], v: Seg[], frags: Fragment[], pageNo: number): PdfTableT[] {
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
      };
      cells.push(cell);
      cellFragments.set(cell, fs);
    }
    // Single-cell "tables" (a box around a paragraph) are frames, not tables.
    if (cells.length < 2) continue;
    markHeaderRows(cells, cellFragments, R);
    cells.sort((p, q) => p.row - q.row || p.col - q.col);
    tables.push({ id: '', bbox: tb.map(r2) as BBox, rows: R, columns: C, ruled: true, source: 'ruling', cells });
  }
  tables.sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  tables.forEach((t, i) => (t.id = `p${pageNo}.t${i}`));
  return tables;
}

/**
 * Marks header cells (`header: true`): the table's leading rows, at most 3, whose text is all
 * bold while the next row's is not — the usual way a header row is set. A cell counts in every
 * row it spans, and only cells lying wholly inside the header rows are marked (a bold cell
 * merged down into the body is not). A table set entirely in bold, or with no bold, gets none;
 * so does a header told apart only by shading or rules.
 */
function markHeaderRows(cells: PdfTableT['cells'], fragments: Map<PdfTableT['cells'][number], Fragment[]>, rows: number): void {
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
 * Unruled tables from text alignment: runs of ≥ 3 consecutive lines that each split into
 * ≥ 3 cells at shared column gaps (whitespace columns common to all rows).
 */
function alignedTables(frags: Fragment[], ruled: PdfTableT[], pageNo: number, first: number): PdfTableT[] {
  const free = frags.filter(
    (fr) =>
      !ruled.some(
        (t) => (fr.x0 + fr.x1) / 2 >= t.bbox[0] && (fr.x0 + fr.x1) / 2 <= t.bbox[2] && (fr.y0 + fr.y1) / 2 >= t.bbox[1] && (fr.y0 + fr.y1) / 2 <= t.bbox[3],
      ),
  );
  // Rows: fragments on one baseline.
  const rows: Fragment[][] = [];
  for (const fr of [...free].sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2)) {
    const last = rows[rows.length - 1];
    const cy = (fr.y0 + fr.y1) / 2;
    if (last && Math.abs((last[0].y0 + last[0].y1) / 2 - cy) < (fr.y1 - fr.y0) * 0.4) last.push(fr);
    else rows.push([fr]);
  }
  const out: PdfTableT[] = [];
  let i = 0;
  while (i < rows.length) {
    if (rows[i].length < 3) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < rows.length && rows[j].length >= 2 && rows[j][0].y0 - rows[j - 1][0].y1 < (rows[j][0].y1 - rows[j][0].y0) * 2.5) j++;
    const run = rows.slice(i, j);
    if (run.length >= 3) {
      // Column boundaries: x-intervals covered by some fragment, merged across the run.
      const iv = run
        .flat()
        .map((fr) => [fr.x0, fr.x1] as [number, number])
        .sort((a, b) => a[0] - b[0]);
      const cols: [number, number][] = [];
      for (const [a, b] of iv) {
        const last = cols[cols.length - 1];
        if (last && a <= last[1] + 2) last[1] = Math.max(last[1], b);
        else cols.push([a, b]);
      }
      const full = run.filter((r) => r.length >= Math.max(2, cols.length - 1)).length;
      if (cols.length >= 3 && full >= run.length * 0.6) {
        const cells: PdfTableT['cells'] = [];
        const cellFragments = new Map<PdfTableT['cells'][number], Fragment[]>();
        run.forEach((r, ri) => {
          const y0 = Math.min(...r.map((fr) => fr.y0)),
            y1 = Math.max(...r.map((fr) => fr.y1));
          cols.forEach(([a, b], ci) => {
            const fs = r.filter((fr) => (fr.x0 + fr.x1) / 2 >= a && (fr.x0 + fr.x1) / 2 <= b);
            const cell = {
              row: ri,
              col: ci,
              rowSpan: 1,
              colSpan: 1,
              text: fs
                .sort((p, q) => p.x0 - q.x0)
                .map((fr) => fr.text)
                .join(' '),
              bbox: [r2(a), r2(y0), r2(b), r2(y1)] as BBox,
            };
            cells.push(cell);
            cellFragments.set(cell, fs);
          });
        });
        markHeaderRows(cells, cellFragments, run.length);
        const y0 = Math.min(...run[0].map((fr) => fr.y0)),
          y1 = Math.max(...run[run.length - 1].map((fr) => fr.y1));
        out.push({
          id: `p${pageNo}.t${first + out.length}`,
          bbox: [r2(cols[0][0]), r2(y0), r2(cols[cols.length - 1][1]), r2(y1)],
          rows: run.length,
          columns: cols.length,
          ruled: false,
          source: 'alignment',
          cells,
        });
      }
    }
    i = j;
  }
  return out;
}

/**
 * Fragments by centre point, sorted by centre y: the fragments whose centre lies in a box
 * (link text) without scanning the page's fragments once per link.
 */
class CentreIndex {
  private readonly cx: Float64Array;
  private readonly cy: Float64Array;
  /** Fragment indices sorted by centre y. */
  private readonly byY: Int32Array;
  constructor(private readonly frags: Fragment[]) {
    const n = frags.length;
    this.cx = new Float64Array(n);
    this.cy = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const f = frags[i];
      this.cx[i] = (f.x0 + f.x1) / 2;
      this.cy[i] = (f.y0 + f.y1) / 2;
    }
    const cy = this.cy;
    this.byY = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => cy[a] - cy[b]);
  }
  /** Texts of the fragments with centre in [x0, x1] × [y0, y1], in fragment order, joined by spaces. */
  textIn(x0: number, y0: number, x1: number, y1: number): string {
    const { cx, cy, byY } = this;
    let lo = 0,
      hi = byY.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cy[byY[mid]] < y0) lo = mid + 1;
      else hi = mid;
    }
    const hits: number[] = [];
    for (let k = lo; k < byY.length && cy[byY[k]] <= y1; k++) {
      const i = byY[k];
      if (cx[i] >= x0 && cx[i] <= x1) hits.push(i);
    }
    hits.sort((a, b) => a - b);
    return hits.map((i) => this.frags[i].text).join(' ');
  }
}

const ANNOT_SUBTYPES = [
  'Unknown',
  'Text',
  'Link',
  'FreeText',
  'Line',
  'Square',
  'Circle',
  'Polygon',
  'PolyLine',
  'Highlight',
  'Underline',
  'Squiggly',
  'StrikeOut',
  'Stamp',
  'Caret',
  'Ink',
  'Popup',
  'FileAttachment',
  'Sound',
  'Movie',
  'Widget',
  'Screen',
  'PrinterMark',
  'TrapNet',
  'Watermark',
  'ThreeD',
  'RichMedia',
  'XFAWidget',
  'Redact',
];
const FIELD_TYPES = ['unknown', 'pushbutton', 'checkbox', 'radiobutton', 'combobox', 'listbox', 'textfield', 'signature'];
const ANNOT_LINK = 2;
const ANNOT_WIDGET = 20;
const ANNOT_POPUP = 16;

/** Annotations, links and form fields of a page (form handle from formHandle()). */
function annotations(doc: PdfDocument, page: number, g: PageGeometry, form: number, frags: Fragment[]): Pick<PdfPageT, 'links' | 'annotations' | 'formFields'> {
  const { api, ex } = doc.p;
  const s = doc.scratch;
  const links: NonNullable<PdfPageT['links']> = [];
  const annots: NonNullable<PdfPageT['annotations']> = [];
  const fields: NonNullable<PdfPageT['formFields']> = [];
  const n = ex.FPDFPage_GetAnnotCount(page);
  let centres: CentreIndex | undefined;
  for (let k = 0; k < n && k < 5000; k++) {
    const a = ex.FPDFPage_GetAnnot(page, k);
    if (!a) continue;
    try {
      const st = ex.FPDFAnnot_GetSubtype(a);
      let bbox: BBox = [0, 0, 0, 0];
      if (ex.FPDFAnnot_GetRect(a, s.ptr)) {
        const [ax, ay] = toDisplay(g, s.f32(0), s.f32(1));
        const [bx, by] = toDisplay(g, s.f32(2), s.f32(3));
        bbox = [r2(Math.min(ax, bx)), r2(Math.min(ay, by)), r2(Math.max(ax, bx)), r2(Math.max(ay, by))];
      }
      if (st === ANNOT_LINK) {
        const link = ex.FPDFAnnot_GetLink(a);
        const item: NonNullable<PdfPageT['links']>[number] = { bbox };
        if (link) {
          const action = ex.FPDFLink_GetAction(link);
          if (action && ex.FPDFAction_GetType(action) === 3) {
            const need = ex.FPDFAction_GetURIPath(doc.handle, action, 0, 0);
            if (need > 1) {
              const buf = ex.malloc(need);
              ex.FPDFAction_GetURIPath(doc.handle, action, buf, need);
              item.uri = doc.p.M.UTF8ToString(buf);
              ex.free(buf);
            }
          }
          let dest = ex.FPDFLink_GetDest(doc.handle, link);
          if (!dest && action) dest = ex.FPDFAction_GetDest(doc.handle, action);
          if (dest) {
            const idx = ex.FPDFDest_GetDestPageIndex(doc.handle, dest);
            if (idx >= 0) item.targetPage = idx + 1;
          }
        }
        const text = (centres ??= new CentreIndex(frags)).textIn(bbox[0] - 1, bbox[1] - 1, bbox[2] + 1, bbox[3] + 1);
        if (text) item.text = text;
        links.push(item);
        continue;
      }
      if (st === ANNOT_WIDGET && form) {
        const name = doc.utf16((b, l) => ex.FPDFAnnot_GetFormFieldName(form, a, b, l));
        const type = FIELD_TYPES[ex.FPDFAnnot_GetFormFieldType(form, a)] ?? 'unknown';
        const raw = doc.utf16((b, l) => ex.FPDFAnnot_GetFormFieldValue(form, a, b, l));
        const alt = doc.utf16((b, l) => ex.FPDFAnnot_GetFormFieldAlternateName(form, a, b, l));
        const flags = ex.FPDFAnnot_GetFormFieldFlags(form, a);
        const field: NonNullable<PdfPageT['formFields']>[number] = { name, type, value: raw === '' ? null : raw, bbox };
        if (type === 'checkbox' || type === 'radiobutton') field.checked = !!api.FPDFAnnot_IsChecked(form, a);
        if (alt) field.alternateName = alt;
        if (flags & 1) field.readOnly = true;
        if (flags & 2) field.required = true;
        if (type === 'combobox' || type === 'listbox') {
          const no = ex.FPDFAnnot_GetOptionCount(form, a);
          const opts: string[] = [];
          for (let o = 0; o < no && o < 500; o++) opts.push(doc.utf16((b, l) => ex.FPDFAnnot_GetOptionLabel(form, a, o, b, l)));
          field.options = opts;
        }
        fields.push(field);
        continue;
      }
      if (st === ANNOT_POPUP) continue;
      const item: NonNullable<PdfPageT['annotations']>[number] = { subtype: ANNOT_SUBTYPES[st] ?? `Unknown(${st})`, bbox };
      const contents = doc.utf16((b, l) => api.FPDFAnnot_GetStringValue(a, 'Contents', b, l));
      const author = doc.utf16((b, l) => api.FPDFAnnot_GetStringValue(a, 'T', b, l));
      if (contents) item.contents = contents;
      if (author) item.author = author;
      annots.push(item);
    } finally {
      ex.FPDFPage_CloseAnnot(a);
    }
  }
  const out: Pick<PdfPageT, 'links' | 'annotations' | 'formFields'> = { links, annotations: annots };
  if (fields.length || form) out.formFields = fields;
  return out;
}

const forms = new WeakMap<PdfDocument, number>();

/** Form-fill environment of a document (needed to read field values); 0 when it has no form. */
function formHandle(doc: PdfDocument): number {
  const known = forms.get(doc);
  if (known !== undefined) return known;
  let h = 0;
  const { ex } = doc.p;
  if (ex.FPDF_GetFormType(doc.handle) > 0) {
    const info: number = ex.PDFiumExt_OpenFormFillInfo();
    const env: number = info ? ex.PDFiumExt_InitFormFillEnvironment(doc.handle, info) : 0;
    h = env;
    doc.onClose(() => {
      if (env) ex.PDFiumExt_ExitFormFillEnvironment(env);
      if (info) ex.PDFiumExt_CloseFormFillInfo(info);
    });
  }
  forms.set(doc, h);
  return h;
}

function boxToDisplay(frame: PageGeometry, g: PageGeometry, b: number[]): [number, number, number, number] {
  const o = { x0: b[0], y0: b[1], x1: b[2], y1: b[3] };
  frameToDisplay(frame, g, o);
  return [r2(o.x0), r2(o.y0), r2(o.x1), r2(o.y1)];
}

/** Structure-tree element types by marked-content ID for a page (tagged PDFs). */
export function structTypes(doc: PdfDocument, page: number): Map<number, string> {
  const { ex } = doc.p;
  const out = new Map<number, string>();
  const tree = ex.FPDF_StructTree_GetForPage(page);
  if (!tree) return out;
  let visited = 0;
  const walk = (el: number, depth: number, inherited: string) => {
    if (!el || depth > 64 || ++visited > 20000) return;
    const raw = doc.utf16((b, l) => ex.FPDF_StructElement_GetType(el, b, l));
    // Keep the meaningful type: list items and table cells name their container.
    const type = raw === 'LBody' || raw === 'Lbl' || raw === 'Span' || raw === 'Link' ? inherited || raw : raw;
    const nm = ex.FPDF_StructElement_GetMarkedContentIdCount(el);
    for (let k = 0; k < nm; k++) {
      const id = ex.FPDF_StructElement_GetMarkedContentIdAtIndex(el, k);
      if (id >= 0 && !out.has(id)) out.set(id, type);
    }
    const n = ex.FPDF_StructElement_CountChildren(el);
    for (let k = 0; k < n; k++) {
      const child = ex.FPDF_StructElement_GetChildAtIndex(el, k);
      if (child) walk(child, depth + 1, raw === 'LI' ? 'LI' : /^(TD|TH)$/.test(raw) ? raw : type);
      else {
        const mc = ex.FPDF_StructElement_GetChildMarkedContentID(el, k);
        if (mc >= 0 && !out.has(mc)) out.set(mc, type);
      }
    }
  };
  try {
    const n = ex.FPDF_StructTree_CountChildren(tree);
    for (let k = 0; k < n; k++) walk(ex.FPDF_StructTree_GetChildAtIndex(tree, k), 0, '');
  } finally {
    ex.FPDF_StructTree_Close(tree);
  }
  return out;
}

/**
 * `frame` is the geometry the fragments are in (the displayed page unless its text runs
 * sideways); rulings are found in that frame too, and all boxes are returned in display space.
 */
export function advancedPageExtras(
  doc: PdfDocument,
  page: number,
  index: number,
  g: PageGeometry,
  frame: PageGeometry,
  frags: Fragment[],
  blocks: RawBlock[],
  types?: Map<number, string>,
): AdvancedExtras {
  if (types?.size) {
    for (const b of blocks) {
      const id = b.lines?.find((l) => l.mcid !== undefined && l.mcid >= 0)?.mcid;
      const t = id !== undefined ? types.get(id) : undefined;
      if (t) b.structType = t;
    }
  }
  const images: NonNullable<PdfPageT['images']> = [];
  const { h, v } = rulingSegments(doc, page, frame, images);
  const ruled = ruledTables(h, v, frags, index + 1);
  const aligned = alignedTables(frags, ruled, index + 1, ruled.length);
  const tables = [...ruled, ...aligned];
  const form = formHandle(doc);
  const ann = annotations(doc, page, frame, form, frags);
  if (frame.rotation !== g.rotation) {
    for (const t of tables) {
      t.bbox = boxToDisplay(frame, g, t.bbox);
      for (const c of t.cells) c.bbox = boxToDisplay(frame, g, c.bbox);
    }
    for (const im of images) im.bbox = boxToDisplay(frame, g, im.bbox);
    for (const l of ann.links ?? []) l.bbox = boxToDisplay(frame, g, l.bbox);
    for (const a of ann.annotations ?? []) a.bbox = boxToDisplay(frame, g, a.bbox);
    for (const f of ann.formFields ?? []) f.bbox = boxToDisplay(frame, g, f.bbox);
  }
  return { page: { tables, images, ...ann }, tables };
}
