// One walk over a page's objects for Advanced mode: the axis-aligned line segments that ruled
// tables are built from (path objects, one form XObject level deep) and the positions of the
// page's images. Kept apart from table building, which only consumes the merged segments.
import type { PdfDocument } from './document.js';
import { toDisplay, type PageGeometry } from './textlayer.js';
import type { PdfPageT } from './schema.js';
import { r2 } from './display-units.js';
import { UNPLACED } from './provenance.js';

export interface Seg {
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
export const TOL = 2;

/** Collects axis-aligned line segments (display space) of path objects, one form XObject level deep. */
export function rulingSegments(doc: PdfDocument, page: number, g: PageGeometry, images: Partial<PdfPageT>['images']): { h: Seg[]; v: Seg[] } {
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
          provenance: UNPLACED,
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
