// PresentationML reader (PPTX/PPTM; PPT and ODP arrive here after LibreOffice converted
// them): slides in presentation order with title, text blocks (paragraph levels), tables
// with merged cells and header rows, pictures, hyperlinks and speaker notes.
import type { OfficeSlideT, OfficeSlideTableT } from './schema.js';
import type { Provenance } from '../kit/provenance.js';
import type { ZipPackage } from './zip.js';
import { printable, unreadableBecause } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';
import { allText, attr, child, children, find, kids, parseRels, parseXml, relsPathOf, root, tag, type Rel, type XNode } from './xml.js';
import { mainDocumentPart } from './docx.js';

const PART_LIMIT = 64 * 1024 * 1024;
const MAX_DEPTH = 32;

/** The slides the presentation lists, in order; null for one whose part is not in the package. */
export async function slideParts(zip: ZipPackage): Promise<(string | null)[]> {
  const main = await mainDocumentPart(zip).catch(() => zip.resolve('ppt/presentation.xml'));
  if (!main) throw new ExtractionError('not a presentation: the package has no ppt/presentation.xml');
  const rels = parseRels(await zip.readTextIfPresent(relsPathOf(main), 8 << 20), main);
  const pres = root(parseXml(await zip.readText(main, 16 << 20), main), 'presentation');
  if (!pres) throw new ExtractionError(`not a presentation: ${printable(main)} has no p:presentation`);
  const lst = child(pres, 'sldIdLst');
  return (lst ? children(lst, 'sldId') : []).map((s) => {
    const rel = rels.get(attr(s, 'id') ?? '');
    return rel && !rel.external ? zip.resolve(rel.target) : null;
  });
}

/** Slide `index` (from 0) of the presentation; `within` is where the presentation sits in the upload. */
export async function readSlide(zip: ZipPackage, part: string, index: number, warnings: string[], within: Provenance = {}): Promise<OfficeSlideT> {
  const rels = parseRels(await zip.readTextIfPresent(relsPathOf(part), 8 << 20), part);
  const sld = root(parseXml(await zip.readText(part, PART_LIMIT), part), 'sld');
  const slide: OfficeSlideT = {
    index,
    number: index + 1,
    hidden: false,
    title: null,
    textBlocks: [],
    tables: [],
    images: [],
    links: [],
    notes: null,
    provenance: { ...within, slide: index + 1 },
  };
  if (!sld) {
    warnings.push(`slide ${index + 1} (${printable(part)}) has no content`);
    return slide;
  }
  slide.hidden = attr(sld, 'show') === '0' || attr(sld, 'show') === 'false';
  const tree = find(sld, 'spTree');
  if (tree) walkShapes(kids(tree), slide, rels, 0);
  const title = slide.textBlocks.find((b) => b.placeholder === 'title' || b.placeholder === 'ctrTitle');
  slide.title = title ? title.text.replace(/\s*\n\s*/g, ' ').trim() || null : null;

  const notesRel = [...rels.values()].find((r) => r.type.endsWith('/notesSlide') && !r.external);
  if (notesRel && zip.resolve(notesRel.target)) {
    try {
      const notes = root(parseXml(await zip.readText(notesRel.target, PART_LIMIT), notesRel.target), 'notes');
      const ntree = notes ? find(notes, 'spTree') : undefined;
      if (ntree) {
        const tmp: OfficeSlideT = { ...slide, textBlocks: [], tables: [], images: [], links: [] };
        walkShapes(kids(ntree), tmp, new Map(), 0);
        const text = tmp.textBlocks
          .filter((b) => b.placeholder === 'body')
          .map((b) => b.text)
          .join('\n')
          .trim();
        slide.notes = text || null;
      }
    } catch (err) {
      warnings.push(`notes of slide ${index + 1} unreadable: ${unreadableBecause(err, 'the notes part is damaged')}`);
    }
  }
  return slide;
}

function placeholderOf(sp: XNode): string | null {
  const nv = child(sp, 'nvSpPr');
  const nvPr = nv ? child(nv, 'nvPr') : undefined;
  const ph = nvPr ? child(nvPr, 'ph') : undefined;
  if (!ph) return null;
  return attr(ph, 'type') ?? 'body';
}

function nameOf(n: XNode): string | null {
  const c = find(n, 'cNvPr');
  return c ? (attr(c, 'name') ?? null) : null;
}

function paragraphs(txBody: XNode, rels: Map<string, Rel>, links: { text: string; target: string }[]): { text: string; level: number }[] {
  const out: { text: string; level: number }[] = [];
  for (const p of children(txBody, 'p')) {
    const pPr = child(p, 'pPr');
    const level = Number(pPr ? (attr(pPr, 'lvl') ?? 0) : 0) || 0;
    let text = '';
    for (const r of kids(p)) {
      const t = tag(r);
      if (t === 'r' || t === 'fld') {
        const s = allText(child(r, 't') ?? {});
        text += s;
        const rPr = child(r, 'rPr');
        const h = rPr ? child(rPr, 'hlinkClick') : undefined;
        const rel = h ? rels.get(attr(h, 'id') ?? '') : undefined;
        if (rel && s.trim()) links.push({ text: s.trim(), target: rel.target });
      } else if (t === 'br') text += '\n';
    }
    out.push({ text, level });
  }
  return out;
}

function walkShapes(nodes: XNode[], slide: OfficeSlideT, rels: Map<string, Rel>, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const n of nodes) {
    switch (tag(n)) {
      case 'sp': {
        const tx = child(n, 'txBody');
        if (!tx) break;
        const paras = paragraphs(tx, rels, slide.links);
        const text = paras
          .map((p) => p.text)
          .join('\n')
          .trim();
        if (!text) break;
        slide.textBlocks.push({
          shape: nameOf(n),
          placeholder: placeholderOf(n),
          paragraphs: paras.filter((p) => p.text.trim()),
          text,
          provenance: slide.provenance,
        });
        break;
      }
      case 'grpSp':
        walkShapes(kids(n), slide, rels, depth + 1);
        break;
      case 'graphicFrame': {
        const tbl = find(n, 'tbl');
        if (tbl) slide.tables.push(table(tbl, rels, slide));
        break;
      }
      case 'pic': {
        const c = find(n, 'cNvPr');
        const blip = find(n, 'blip');
        const rel = blip ? rels.get(attr(blip, 'embed') ?? '') : undefined;
        slide.images.push({ name: c ? (attr(c, 'name') ?? null) : null, description: c ? attr(c, 'descr') || null : null, target: rel ? rel.target : null });
        break;
      }
      case 'AlternateContent': {
        const choice = child(n, 'Choice') ?? child(n, 'Fallback');
        if (choice) walkShapes(kids(choice), slide, rels, depth + 1);
        break;
      }
      default:
        break;
    }
  }
}

const isOn = (v: string | undefined): boolean => v === '1' || v === 'true';

/**
 * A table as PresentationML holds it: a cell spanning columns or rows (gridSpan, rowSpan) is
 * written once at its top-left grid position; the grid positions it covers (hMerge, vMerge)
 * are not repeated. tblPr firstRow marks the first row as the header.
 */
function table(tbl: XNode, rels: Map<string, Rel>, slide: OfficeSlideT): OfficeSlideTableT {
  const rows: OfficeSlideTableT['rows'] = [];
  const tblPr = child(tbl, 'tblPr');
  let columnCount = 0;
  children(tbl, 'tr').forEach((tr, r) => {
    const cells: (typeof rows)[number] = [];
    let col = 0;
    for (const tc of children(tr, 'tc')) {
      if (!isOn(attr(tc, 'hMerge')) && !isOn(attr(tc, 'vMerge'))) {
        const tx = child(tc, 'txBody');
        const text = tx
          ? paragraphs(tx, rels, slide.links)
              .map((p) => p.text)
              .join('\n')
              .trim()
          : '';
        cells.push({
          row: r,
          col,
          rowSpan: Math.max(1, Number(attr(tc, 'rowSpan') ?? 1) || 1),
          colSpan: Math.max(1, Number(attr(tc, 'gridSpan') ?? 1) || 1),
          text,
        });
      }
      col++;
    }
    columnCount = Math.max(columnCount, col);
    rows.push(cells);
  });
  const headerRows = tblPr && isOn(attr(tblPr, 'firstRow')) && rows.length ? 1 : 0;
  return { rowCount: rows.length, columnCount, headerRows, rows, provenance: slide.provenance };
}
