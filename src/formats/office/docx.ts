// WordprocessingML reader (DOCX/DOCM, Transitional and Strict): body blocks in order with
// heading levels, style names, list items with nesting and rendered labels, tables with
// merged cells (gridSpan/vMerge), text boxes, footnotes/endnotes, comments, headers and
// footers, hyperlinks (relationships and HYPERLINK fields) and image metadata.
import type { OfficeBlock, OfficeImageT, OfficePropertiesT } from './schema.js';
import type { ZipPackage } from './zip.js';
import { printable, unreadableBecause } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';
import { allText, attr, child, children, find, kids, mediaType, parseRels, parseXml, relsPathOf, root, tag, textNode, type Rel, type XNode } from './xml.js';

/** Levels of nesting (tables in cells, text boxes, content controls) read. */
export const MAX_DEPTH = 64;
/** Word's list levels are 0–8 (w:ilvl). */
const MAX_LIST_LEVEL = 8;

export interface DocxModel {
  blocks: OfficeBlock[];
  headersFooters: { kind: 'header' | 'footer'; type: string; text: string }[];
  footnotes: { id: string; text: string }[];
  endnotes: { id: string; text: string }[];
  comments: { id: string; author: string | null; date: string | null; text: string }[];
  hyperlinks: { text: string; target: string }[];
  images: OfficeImageT[];
  hasMacros: boolean;
  /** w:lastRenderedPageBreak markers in the body: Word's own layout at its last save. */
  renderedPageBreaks: number;
  /** Body tables left out because they sit deeper than MAX_DEPTH levels of nesting. */
  tablesTooDeep: number;
}

interface StyleInfo {
  name: string;
  basedOn?: string;
  outlineLvl?: number;
  numId?: string;
  ilvl?: number;
}

interface LevelDef {
  numFmt: string;
  lvlText: string;
  start: number;
}

type Link = { text: string; target: string };

interface ParaInfo {
  text: string;
  links: Link[];
  footnoteIds: string[];
  endnoteIds: string[];
  commentIds: string[];
  /** Text boxes and tables found inside runs, emitted after the paragraph. */
  extra: XNode[][];
  extraTables: XNode[];
}

export async function mainDocumentPart(zip: ZipPackage): Promise<string> {
  const rels = parseRels(await zip.readTextIfPresent('_rels/.rels', 1 << 20), '');
  for (const r of rels.values()) if (/\/officeDocument$/.test(r.type) && zip.resolve(r.target)) return zip.resolve(r.target)!;
  const fallback = zip.resolve('word/document.xml');
  if (fallback) return fallback;
  throw new ExtractionError('not a Word document: the package has no main document part (word/document.xml)');
}

export class DocxReader {
  private styles = new Map<string, StyleInfo>();
  private defaultParaStyle: string | null = null;
  private nums = new Map<string, { abstractId: string; starts: Map<number, number> }>();
  private abstracts = new Map<string, Map<number, LevelDef>>();
  private counters = new Map<string, number[]>();
  private rels = new Map<string, Rel>();
  private partName = '';
  /** The main document part: only its hyperlinks, images and page-break markers count. */
  private mainPart = '';
  private blockIndex = 0;
  readonly model: DocxModel = {
    blocks: [],
    headersFooters: [],
    footnotes: [],
    endnotes: [],
    comments: [],
    hyperlinks: [],
    images: [],
    hasMacros: false,
    renderedPageBreaks: 0,
    tablesTooDeep: 0,
  };

  constructor(
    private readonly zip: ZipPackage,
    private readonly warnings: string[],
    /**
     * Largest main document part read (settings.office.maxPartBytes): the XML tree costs
     * ~10–20× its size in heap, and the worker's heap is capped; 48 MiB of WordprocessingML
     * is thousands of pages.
     */
    private readonly maxPartBytes: number,
  ) {}

  /** `mainXml`: the main document part's text when the caller has read it already. */
  async read(mainXml?: string): Promise<DocxModel> {
    const main = await mainDocumentPart(this.zip);
    const mainRels = parseRels(await this.zip.readTextIfPresent(relsPathOf(main), 8 << 20), main);
    this.model.hasMacros = this.zip.names().some((n) => /vbaProject\.bin$/i.test(n));
    const relOf = (suffix: string) => [...mainRels.values()].find((r) => r.type.endsWith(suffix) && !r.external);
    const stylesRel = relOf('/styles');
    if (stylesRel && this.zip.resolve(stylesRel.target)) await this.loadStyles(stylesRel.target);
    const numRel = relOf('/numbering');
    if (numRel && this.zip.resolve(numRel.target)) await this.loadNumbering(numRel.target);

    const xml = mainXml ?? (await this.zip.readText(main, this.maxPartBytes));
    const doc = root(parseXml(xml, main), 'document');
    const body = doc ? child(doc, 'body') : undefined;
    if (!body) throw new ExtractionError(`not a Word document: ${printable(main)} has no w:body`);
    this.rels = mainRels;
    this.partName = this.mainPart = main;
    const sectRefs: XNode[] = [];
    this.model.blocks = this.walkBlocks(kids(body), 0, true, sectRefs);

    // Headers and footers referenced by the section properties, each part once.
    const seen = new Set<string>();
    for (const ref of sectRefs) {
      const kind = tag(ref) === 'headerReference' ? 'header' : 'footer';
      const rel = mainRels.get(attr(ref, 'id') ?? '');
      if (!rel || rel.external || seen.has(rel.target) || !this.zip.resolve(rel.target)) continue;
      seen.add(rel.target);
      const text = await this.partText(rel.target, kind === 'header' ? 'hdr' : 'ftr');
      if (text.trim()) this.model.headersFooters.push({ kind, type: attr(ref, 'type') ?? 'default', text });
    }
    const fnRel = relOf('/footnotes');
    if (fnRel) this.model.footnotes = await this.notes(fnRel.target, 'footnote');
    const enRel = relOf('/endnotes');
    if (enRel) this.model.endnotes = await this.notes(enRel.target, 'endnote');
    const cmRel = relOf('/comments');
    if (cmRel) this.model.comments = await this.readComments(cmRel.target);
    for (const r of mainRels.values()) if (r.type.endsWith('/subDocument')) this.warnings.push(`sub-document link not followed: ${printable(r.target)}`);
    return this.model;
  }

  // ---- styles and numbering -------------------------------------------------------------
  private async loadStyles(part: string): Promise<void> {
    try {
      const r = root(parseXml(await this.zip.readText(part, 32 << 20), part), 'styles');
      if (!r) return;
      for (const s of children(r, 'style')) {
        const id = attr(s, 'styleId');
        if (!id) continue;
        const pPr = child(s, 'pPr');
        const numPr = pPr ? child(pPr, 'numPr') : undefined;
        const ol = pPr ? child(pPr, 'outlineLvl') : undefined;
        const info: StyleInfo = { name: attr(child(s, 'name') ?? {}, 'val') ?? id };
        const based = child(s, 'basedOn');
        if (based) info.basedOn = attr(based, 'val');
        if (ol) info.outlineLvl = Number(attr(ol, 'val'));
        if (numPr) {
          info.numId = attr(child(numPr, 'numId') ?? {}, 'val');
          const il = child(numPr, 'ilvl');
          info.ilvl = il ? Number(attr(il, 'val')) : 0;
        }
        this.styles.set(id, info);
        if (attr(s, 'type') === 'paragraph' && (attr(s, 'default') === '1' || attr(s, 'default') === 'true')) this.defaultParaStyle = id;
      }
    } catch (err) {
      this.warnings.push(`styles unreadable, heading levels may be missing: ${unreadableBecause(err, 'the styles part is damaged')}`);
    }
  }

  private async loadNumbering(part: string): Promise<void> {
    try {
      const r = root(parseXml(await this.zip.readText(part, 32 << 20), part), 'numbering');
      if (!r) return;
      for (const a of children(r, 'abstractNum')) {
        const levels = new Map<number, LevelDef>();
        for (const l of children(a, 'lvl')) {
          levels.set(Number(attr(l, 'ilvl') ?? 0), {
            numFmt: attr(child(l, 'numFmt') ?? {}, 'val') ?? 'decimal',
            lvlText: attr(child(l, 'lvlText') ?? {}, 'val') ?? '',
            start: Number(attr(child(l, 'start') ?? {}, 'val') ?? 1),
          });
        }
        this.abstracts.set(attr(a, 'abstractNumId') ?? '', levels);
      }
      for (const n of children(r, 'num')) {
        const starts = new Map<number, number>();
        for (const o of children(n, 'lvlOverride')) {
          const so = child(o, 'startOverride');
          if (so) starts.set(Number(attr(o, 'ilvl') ?? 0), Number(attr(so, 'val') ?? 1));
        }
        this.nums.set(attr(n, 'numId') ?? '', { abstractId: attr(child(n, 'abstractNumId') ?? {}, 'val') ?? '', starts });
      }
    } catch (err) {
      this.warnings.push(`numbering unreadable, list labels may be missing: ${unreadableBecause(err, 'the numbering part is damaged')}`);
    }
  }

  private styleChain(id: string | null): StyleInfo[] {
    const out: StyleInfo[] = [];
    let cur = id ?? this.defaultParaStyle;
    for (let i = 0; cur && i < 20; i++) {
      const s = this.styles.get(cur);
      if (!s) break;
      out.push(s);
      cur = s.basedOn ?? null;
    }
    return out;
  }

  private listLabel(numId: string, ilvl: number): { ordered: boolean; label: string | null } {
    // Labels count every level up to this one: a level past Word's 0–8 (w:ilvl 30000000 in a
    // 1 KB file) would make that count take seconds and gigabytes, so it gets no label.
    if (!Number.isInteger(ilvl) || ilvl < 0 || ilvl > MAX_LIST_LEVEL) return { ordered: false, label: null };
    const num = this.nums.get(numId);
    const levels = num ? this.abstracts.get(num.abstractId) : undefined;
    const def = levels?.get(ilvl);
    if (!def) return { ordered: false, label: null };
    if (def.numFmt === 'bullet' || def.numFmt === 'none') {
      const ch = def.lvlText;
      const printable = ch && !/[\uE000-\uF8FF]/.test(ch) ? ch : '•';
      return { ordered: false, label: def.numFmt === 'none' ? null : printable };
    }
    let c = this.counters.get(numId);
    if (!c) {
      c = [];
      this.counters.set(numId, c);
    }
    const startOf = (l: number) => num?.starts.get(l) ?? levels?.get(l)?.start ?? 1;
    for (let l = 0; l < ilvl; l++) if (c[l] === undefined) c[l] = startOf(l);
    c[ilvl] = c[ilvl] === undefined ? startOf(ilvl) : c[ilvl] + 1;
    c.length = ilvl + 1;
    const label = def.lvlText.replace(/%(\d)/g, (_, d: string) => {
      const l = Number(d) - 1;
      const fmt = levels?.get(l)?.numFmt ?? 'decimal';
      return formatNumber(c![l] ?? startOf(l), fmt);
    });
    return { ordered: true, label: label || null };
  }

  // ---- block walking --------------------------------------------------------------------
  private walkBlocks(nodes: XNode[], depth: number, top: boolean, sectRefs?: XNode[]): OfficeBlock[] {
    const out: OfficeBlock[] = [];
    if (depth > MAX_DEPTH) {
      this.warnings.push('content nested too deeply; inner content skipped');
      if (this.partName === this.mainPart) this.model.tablesTooDeep += countTags(nodes, 'tbl');
      return out;
    }
    let localIndex = 0;
    const nextIndex = () => (top ? this.blockIndex++ : localIndex++);
    for (const n of nodes) {
      switch (tag(n)) {
        case 'p':
          this.paragraph(n, depth, nextIndex, out, sectRefs);
          break;
        case 'tbl':
          out.push(this.table(n, depth, nextIndex()));
          break;
        case 'sdt':
        case 'customXml':
        case 'smartTag':
        case 'ins':
        case 'moveTo': {
          const inner = tag(n) === 'sdt' ? child(n, 'sdtContent') : n;
          if (inner) for (const b of this.walkBlocks(kids(inner), depth + 1, false)) out.push(this.reindex(b, nextIndex()));
          break;
        }
        case 'AlternateContent': {
          const choice = child(n, 'Choice') ?? child(n, 'Fallback');
          if (choice) for (const b of this.walkBlocks(kids(choice), depth + 1, false)) out.push(this.reindex(b, nextIndex()));
          break;
        }
        case 'altChunk': {
          const rel = this.rels.get(attr(n, 'id') ?? '');
          if (rel) this.pendingAltChunks.push({ target: rel.target, at: out.length, top });
          break;
        }
        case 'sectPr':
          if (sectRefs) for (const k of kids(n)) if (tag(k) === 'headerReference' || tag(k) === 'footerReference') sectRefs.push(k);
          break;
        default:
          break;
      }
    }
    return out;
  }

  private pendingAltChunks: { target: string; at: number; top: boolean }[] = [];

  /** Loads altChunk parts (HTML, text) referenced from the body; call after read(). */
  async resolveAltChunks(): Promise<void> {
    const pend = this.pendingAltChunks.filter((p) => p.top);
    if (!pend.length) return;
    let shift = 0;
    for (const p of pend) {
      if (!this.zip.resolve(p.target)) continue;
      try {
        const raw = await this.zip.readText(p.target, 16 << 20);
        const isHtml = /\.(x?html?|mht)$/i.test(p.target) || /<html|<body|<p[\s>]/i.test(raw);
        const paras = isHtml
          ? htmlParagraphs(raw)
          : raw
              .split(/\r?\n\s*\r?\n/)
              .map((s) => s.trim())
              .filter(Boolean);
        const blocks: OfficeBlock[] = paras.map((text) => ({ type: 'paragraph', index: 0, text, style: 'altChunk' }));
        this.model.blocks.splice(p.at + shift, 0, ...blocks);
        shift += blocks.length;
      } catch (err) {
        this.warnings.push(`imported chunk ${printable(p.target)} unreadable: ${unreadableBecause(err, 'its content is damaged')}`);
      }
    }
    this.model.blocks.forEach((b, i) => (b.index = i));
  }

  private reindex(b: OfficeBlock, index: number): OfficeBlock {
    b.index = index;
    return b;
  }

  private paragraph(p: XNode, depth: number, nextIndex: () => number, out: OfficeBlock[], sectRefs?: XNode[]): void {
    const pPr = child(p, 'pPr');
    const styleId = pPr ? (attr(child(pPr, 'pStyle') ?? {}, 'val') ?? null) : null;
    if (pPr && sectRefs) {
      const sp = child(pPr, 'sectPr');
      if (sp) for (const k of kids(sp)) if (tag(k) === 'headerReference' || tag(k) === 'footerReference') sectRefs.push(k);
    }
    const chain = this.styleChain(styleId);
    const styleName = chain[0]?.name ?? styleId ?? null;
    const info: ParaInfo = { text: '', links: [], footnoteIds: [], endnoteIds: [], commentIds: [], extra: [], extraTables: [] };
    const field = { depth: 0, instr: '', inResult: false, linkTarget: null as string | null, linkText: '' };
    this.runs(kids(p), info, field, depth);
    const text = info.text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

    // Heading level: outline level on the paragraph or its style chain, else "Heading N" / "Title".
    let level: number | null = null;
    const ol = pPr ? child(pPr, 'outlineLvl') : undefined;
    if (ol) level = Number(attr(ol, 'val'));
    else
      for (const s of chain)
        if (s.outlineLvl !== undefined) {
          level = s.outlineLvl;
          break;
        }
    if (level !== null && (level < 0 || level > 8 || Number.isNaN(level))) level = null;
    let headingLevel = level !== null ? level + 1 : null;
    if (headingLevel === null) {
      for (const s of chain) {
        const m = /^heading\s*(\d)$/i.exec(s.name);
        if (m) {
          headingLevel = Number(m[1]);
          break;
        }
        if (/^title$/i.test(s.name)) {
          headingLevel = 1;
          break;
        }
      }
    }

    // List membership: numPr on the paragraph or its style.
    let numId: string | undefined;
    let ilvl = 0;
    const numPr = pPr ? child(pPr, 'numPr') : undefined;
    if (numPr) {
      numId = attr(child(numPr, 'numId') ?? {}, 'val');
      ilvl = Number(attr(child(numPr, 'ilvl') ?? {}, 'val') ?? 0) || 0;
    } else {
      for (const s of chain)
        if (s.numId) {
          numId = s.numId;
          ilvl = s.ilvl ?? 0;
          break;
        }
    }

    const inline: Partial<Record<'links' | 'footnoteIds' | 'endnoteIds' | 'commentIds', unknown>> = {};
    if (info.links.length) inline.links = info.links;
    if (info.footnoteIds.length) inline.footnoteIds = info.footnoteIds;
    if (info.endnoteIds.length) inline.endnoteIds = info.endnoteIds;
    if (info.commentIds.length) inline.commentIds = info.commentIds;
    const inMain = this.partName === this.mainPart;
    if (inMain) for (const l of info.links) this.model.hyperlinks.push(l);

    const hasText = text.trim().length > 0;
    if (hasText || inline.footnoteIds || inline.commentIds || inline.endnoteIds) {
      if (headingLevel !== null && hasText) {
        out.push({ type: 'heading', index: nextIndex(), level: headingLevel, text, style: styleName, ...inline } as OfficeBlock);
      } else if (numId && numId !== '0') {
        const { ordered, label } = this.listLabel(numId, ilvl);
        out.push({ type: 'listItem', index: nextIndex(), text, style: styleName, level: ilvl, ordered, listId: numId, label, ...inline } as OfficeBlock);
      } else {
        out.push({ type: 'paragraph', index: nextIndex(), text, style: styleName, ...inline } as OfficeBlock);
      }
    }
    for (const tbl of info.extraTables) out.push(this.table(tbl, depth + 1, nextIndex()));
    for (const box of info.extra) {
      for (const b of this.walkBlocks(box, depth + 1, false)) {
        if (b.type !== 'table') (b as { inTextBox?: boolean }).inTextBox = true;
        out.push(this.reindex(b, nextIndex()));
      }
    }
  }

  private emit(info: ParaInfo, field: { inResult: boolean; depth: number; linkTarget: string | null; linkText: string }, s: string): void {
    if (field.depth > 0 && !field.inResult) return; // field instructions are not text
    info.text += s;
    if (field.linkTarget !== null) field.linkText += s;
  }

  private runs(
    nodes: XNode[],
    info: ParaInfo,
    field: { depth: number; instr: string; inResult: boolean; linkTarget: string | null; linkText: string },
    depth: number,
  ): void {
    if (depth > MAX_DEPTH) return;
    for (const n of nodes) {
      const t = tag(n);
      switch (t) {
        case 't':
          this.emit(info, field, allText(n));
          break;
        case 'tab':
        case 'ptab':
          this.emit(info, field, '\t');
          break;
        case 'br':
        case 'cr':
          this.emit(info, field, '\n');
          break;
        case 'noBreakHyphen':
          this.emit(info, field, '-');
          break;
        case 'sym': {
          const code = Number.parseInt(attr(n, 'char') ?? '', 16);
          if (Number.isFinite(code)) this.emit(info, field, code >= 0xf000 ? '' : String.fromCodePoint(code));
          break;
        }
        case 'fldChar': {
          const ty = attr(n, 'fldCharType');
          if (ty === 'begin') {
            field.depth++;
            field.instr = '';
            field.inResult = false;
          } else if (ty === 'separate') {
            field.inResult = true;
            const m = /HYPERLINK\s+(?:\\l\s+)?"([^"]+)"/i.exec(field.instr);
            if (m) {
              field.linkTarget = m[1];
              field.linkText = '';
            }
          } else if (ty === 'end') {
            if (field.linkTarget !== null) {
              if (field.linkText.trim()) info.links.push({ text: field.linkText.trim(), target: field.linkTarget });
              field.linkTarget = null;
            }
            field.depth = Math.max(0, field.depth - 1);
            field.inResult = field.depth > 0;
          }
          break;
        }
        case 'instrText':
          field.instr += allText(n);
          break;
        case 'lastRenderedPageBreak':
          if (this.partName === this.mainPart) this.model.renderedPageBreaks++;
          break;
        case 'footnoteReference':
          info.footnoteIds.push(attr(n, 'id') ?? '');
          break;
        case 'endnoteReference':
          info.endnoteIds.push(attr(n, 'id') ?? '');
          break;
        case 'commentReference':
          info.commentIds.push(attr(n, 'id') ?? '');
          break;
        case 'hyperlink': {
          const before = info.text.length;
          this.runs(kids(n), info, field, depth + 1);
          const text = info.text.slice(before).trim();
          const rel = this.rels.get(attr(n, 'id') ?? '');
          const anchor = attr(n, 'anchor');
          const target = rel ? rel.target : anchor ? `#${anchor}` : null;
          if (target && text) info.links.push({ text, target });
          break;
        }
        case 'fldSimple': {
          const before = info.text.length;
          this.runs(kids(n), info, field, depth + 1);
          const m = /HYPERLINK\s+"([^"]+)"/i.exec(attr(n, 'instr') ?? '');
          const text = info.text.slice(before).trim();
          if (m && text) info.links.push({ text, target: m[1] });
          break;
        }
        case 'drawing':
          this.drawing(n, info);
          break;
        case 'pict':
        case 'object':
          this.pict(n, info);
          break;
        case 'AlternateContent': {
          const choice = child(n, 'Choice') ?? child(n, 'Fallback');
          if (choice) this.runs(kids(choice), info, field, depth + 1);
          break;
        }
        case 'tbl':
          info.extraTables.push(n);
          break;
        case 'del':
        case 'moveFrom':
        case 'pPr':
        case 'rPr':
        case 'delText':
        case 'delInstrText':
          break;
        default:
          // r, ins, smartTag, sdt, sdtContent, customXml, moveTo, dir, bdo, …
          if (t !== '#text') this.runs(kids(n), info, field, depth + 1);
      }
    }
  }

  private drawing(n: XNode, info: ParaInfo): void {
    const txbx = find(n, 'txbxContent');
    if (txbx) info.extra.push(kids(txbx));
    const docPr = find(n, 'docPr');
    const blip = find(n, 'blip');
    const extent = find(n, 'extent');
    if (!blip && !find(n, 'pic')) return;
    const rel = blip ? this.rels.get(attr(blip, 'embed') ?? attr(blip, 'link') ?? '') : undefined;
    this.addImage(
      docPr ? attr(docPr, 'name') || null : null,
      docPr ? attr(docPr, 'descr') || null : null,
      rel,
      extent ? Number(attr(extent, 'cx')) / 12700 : null,
      extent ? Number(attr(extent, 'cy')) / 12700 : null,
    );
  }

  private pict(n: XNode, info: ParaInfo): void {
    const txbx = find(n, 'txbxContent');
    if (txbx) info.extra.push(kids(txbx));
    const img = find(n, 'imagedata');
    if (!img) return;
    const rel = this.rels.get(attr(img, 'id') ?? '');
    const shape = find(n, 'shape');
    const style = shape ? (attr(shape, 'style') ?? '') : '';
    this.addImage(attr(img, 'title') || null, shape ? attr(shape, 'alt') || null : null, rel, cssLength(style, 'width'), cssLength(style, 'height'));
  }

  private addImage(name: string | null, description: string | null, rel: Rel | undefined, w: number | null, h: number | null): void {
    if (this.partName !== this.mainPart) return;
    const target = rel ? rel.target : null;
    const info = target && !rel?.external ? this.zip.info(this.zip.resolve(target) ?? target) : null;
    this.model.images.push({
      name,
      description: description || null,
      target,
      contentType: target ? mediaType(target) : null,
      sizeBytes: info ? info.uncompressedSize : null,
      widthPt: w !== null && Number.isFinite(w) ? Math.round(w * 100) / 100 : null,
      heightPt: h !== null && Number.isFinite(h) ? Math.round(h * 100) / 100 : null,
      blockIndex: this.blockIndex,
    });
  }

  private table(tbl: XNode, depth: number, index: number): OfficeBlock {
    const rows: { row: number; col: number; rowSpan: number; colSpan: number; text: string; blocks?: OfficeBlock[] }[][] = [];
    const open = new Map<number, { rowSpan: number }>();
    let columnCount = 0;
    let headerRows = 0;
    let r = 0;
    for (const tr of wrappedChildren(tbl, 'tr')) {
      const cells: (typeof rows)[number] = [];
      const trPr = child(tr, 'trPr');
      // Word repeats only the leading run of header rows on each page.
      if (headerRows === r && trPr && isOn(child(trPr, 'tblHeader'))) headerRows++;
      let col = Number(attr(child(trPr ?? {}, 'gridBefore') ?? {}, 'val') ?? 0) || 0;
      for (const tc of wrappedChildren(tr, 'tc')) {
        const tcPr = child(tc, 'tcPr');
        const span = Math.max(1, Number(attr(child(tcPr ?? {}, 'gridSpan') ?? {}, 'val') ?? 1) || 1);
        const vm = tcPr ? child(tcPr, 'vMerge') : undefined;
        const vmVal = vm ? (attr(vm, 'val') ?? 'continue') : null;
        if (vmVal === 'continue' && open.has(col)) {
          open.get(col)!.rowSpan++;
          col += span;
          continue;
        }
        const blocks = this.walkBlocks(kids(tc), depth + 1, false);
        const text = blocks
          .map(blockText)
          .filter((s) => s.length)
          .join('\n');
        const cell: (typeof cells)[number] = { row: r, col, rowSpan: 1, colSpan: span, text };
        if (blocks.length > 1 || blocks.some((b) => b.type === 'table')) cell.blocks = blocks;
        for (let c = col; c < col + span; c++) open.delete(c);
        if (vmVal === 'restart') open.set(col, cell);
        cells.push(cell);
        col += span;
      }
      columnCount = Math.max(columnCount, col);
      rows.push(cells);
      r++;
    }
    return { type: 'table', index, rowCount: rows.length, columnCount, headerRows, rows };
  }

  // ---- other parts ----------------------------------------------------------------------
  private async withPart<T>(part: string, fn: () => T): Promise<T> {
    const saved = { rels: this.rels, partName: this.partName };
    this.rels = parseRels(await this.zip.readTextIfPresent(relsPathOf(part), 8 << 20), part);
    this.partName = part;
    try {
      return fn();
    } finally {
      this.rels = saved.rels;
      this.partName = saved.partName;
    }
  }

  private async partText(part: string, rootName: string): Promise<string> {
    try {
      const xml = await this.zip.readText(part, 32 << 20);
      const r = root(parseXml(xml, part), rootName);
      if (!r) return '';
      return await this.withPart(part, () => this.walkBlocks(kids(r), 1, false).map(blockText).filter(Boolean).join('\n'));
    } catch (err) {
      this.warnings.push(`${printable(part)} unreadable: ${unreadableBecause(err, 'the part is damaged')}`);
      return '';
    }
  }

  private async notes(part: string, kind: 'footnote' | 'endnote'): Promise<{ id: string; text: string }[]> {
    if (!this.zip.resolve(part)) return [];
    try {
      const r = root(parseXml(await this.zip.readText(part, 64 << 20), part), `${kind}s`);
      if (!r) return [];
      return await this.withPart(part, () => {
        const out: { id: string; text: string }[] = [];
        for (const n of children(r, kind)) {
          const ty = attr(n, 'type');
          if (ty === 'separator' || ty === 'continuationSeparator' || ty === 'continuationNotice') continue;
          const text = this.walkBlocks(kids(n), 1, false).map(blockText).filter(Boolean).join('\n').trim();
          out.push({ id: attr(n, 'id') ?? String(out.length), text });
        }
        return out;
      });
    } catch (err) {
      this.warnings.push(`${kind}s unreadable: ${unreadableBecause(err, `the ${kind}s part is damaged`)}`);
      return [];
    }
  }

  private async readComments(part: string): Promise<DocxModel['comments']> {
    if (!this.zip.resolve(part)) return [];
    try {
      const r = root(parseXml(await this.zip.readText(part, 64 << 20), part), 'comments');
      if (!r) return [];
      return await this.withPart(part, () =>
        children(r, 'comment').map((c) => ({
          id: attr(c, 'id') ?? '',
          author: attr(c, 'author') ?? null,
          date: attr(c, 'date') ?? null,
          text: this.walkBlocks(kids(c), 1, false).map(blockText).filter(Boolean).join('\n').trim(),
        })),
      );
    } catch (err) {
      this.warnings.push(`comments unreadable: ${unreadableBecause(err, 'the comments part is damaged')}`);
      return [];
    }
  }
}

/** A WordprocessingML on/off property: present and not "false", "0" or "off". */
function isOn(n: XNode | undefined): boolean {
  if (!n) return false;
  const v = attr(n, 'val');
  return v === undefined || !/^(false|0|off)$/i.test(v);
}

/** Elements named `name` in `nodes` and below them (walked without recursion: the nodes are deep). */
function countTags(nodes: XNode[], name: string): number {
  let n = 0;
  const stack = [...nodes];
  for (let k = stack.pop(); k; k = stack.pop()) {
    if (tag(k) === name) n++;
    stack.push(...kids(k));
  }
  return n;
}

/** Children named `name`, also inside content controls and custom XML wrapping them (8 levels at most). */
function wrappedChildren(n: XNode, name: string, out: XNode[] = [], depth = 0): XNode[] {
  for (const k of kids(n)) {
    const t = tag(k);
    if (t === name) out.push(k);
    else if ((t === 'sdt' || t === 'customXml' || t === 'sdtContent') && depth < 8) wrappedChildren(k, name, out, depth + 1);
  }
  return out;
}

export function blockText(b: OfficeBlock): string {
  if (b.type === 'table') return b.rows.map((row) => row.map((c) => c.text.replace(/\s*\n\s*/g, ' ')).join(' | ')).join('\n');
  return b.text;
}

const CSS_UNITS: Record<string, number> = { pt: 1, in: 72, cm: 72 / 2.54, mm: 72 / 25.4, px: 0.75, pc: 12 };

/** A VML style length (width:5in, height:269.25pt) in points. */
function cssLength(style: string, prop: string): number | null {
  const m = new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*([\\d.]+)\\s*(pt|in|cm|mm|px|pc)?`, 'i').exec(style);
  if (!m) return null;
  return Number(m[1]) * (CSS_UNITS[(m[2] ?? 'px').toLowerCase()] ?? 1);
}

function formatNumber(n: number, fmt: string): string {
  switch (fmt) {
    case 'lowerLetter':
      return letters(n).toLowerCase();
    case 'upperLetter':
      return letters(n);
    case 'lowerRoman':
      return roman(n).toLowerCase();
    case 'upperRoman':
      return roman(n);
    case 'decimalZero':
      return n < 10 ? `0${n}` : String(n);
    default:
      return String(n);
  }
}

function letters(n: number): string {
  if (n < 1) return String(n);
  const ch = String.fromCharCode(65 + ((n - 1) % 26));
  return ch.repeat(Math.floor((n - 1) / 26) + 1);
}

function roman(n: number): string {
  if (n < 1 || n > 3999) return String(n);
  const table: [number, string][] = [
    [1000, 'M'],
    [900, 'CM'],
    [500, 'D'],
    [400, 'CD'],
    [100, 'C'],
    [90, 'XC'],
    [50, 'L'],
    [40, 'XL'],
    [10, 'X'],
    [9, 'IX'],
    [5, 'V'],
    [4, 'IV'],
    [1, 'I'],
  ];
  let s = '';
  for (const [v, r] of table)
    while (n >= v) {
      s += r;
      n -= v;
    }
  return s;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Paragraph texts of a small HTML document (altChunk imports). */
export function htmlParagraphs(html: string): string[] {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .split(/<\/?(?:p|div|h[1-6]|li|tr|table|ul|ol|blockquote|pre)[^>]*>/i)
    .map((s) =>
      s
        .replace(/<[^>]+>/g, '')
        .replace(/&(#x?[0-9a-f]+|\w+);/gi, (m, e: string) => {
          if (e[0] === '#') {
            const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
            return Number.isFinite(code) ? String.fromCodePoint(code) : m;
          }
          return ENTITIES[e.toLowerCase()] ?? m;
        })
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter(Boolean);
}

export type { OfficePropertiesT };
export { textNode };
