// Advanced-mode page annotations: links (target and the text under them), other annotations
// (subtype, contents, author) and form fields with their values, which need the document's
// form-fill environment.
import type { PdfDocument } from './document.js';
import type { Fragment } from './fragment.js';
import { toDisplay, type PageGeometry } from './textlayer.js';
import type { PdfPageT } from './schema.js';
import { r2, type BBox } from './display-units.js';
import { UNPLACED } from './provenance.js';

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
export function annotations(
  doc: PdfDocument,
  page: number,
  g: PageGeometry,
  form: number,
  frags: Fragment[],
): Pick<PdfPageT, 'links' | 'annotations' | 'formFields'> {
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
        const item: NonNullable<PdfPageT['links']>[number] = { bbox, provenance: UNPLACED };
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
        const field: NonNullable<PdfPageT['formFields']>[number] = { name, type, value: raw === '' ? null : raw, bbox, provenance: UNPLACED };
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
      const item: NonNullable<PdfPageT['annotations']>[number] = { subtype: ANNOT_SUBTYPES[st] ?? `Unknown(${st})`, bbox, provenance: UNPLACED };
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
export function formHandle(doc: PdfDocument): number {
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
