// Order-preserving XML trees (fast-xml-parser, namespace prefixes removed so Transitional
// and Strict OOXML read alike) and the small helpers the Office readers share.
import { XMLParser } from 'fast-xml-parser';
import { printable } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';

export type XNode = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

export function parseXml(text: string, what: string): XNode[] {
  try {
    return parser.parse(text) as XNode[];
  } catch (err) {
    throw new ExtractionError(`malformed XML in ${printable(what)}: the part is damaged or truncated`, 'extraction_failed', false, { cause: err });
  }
}

/** Element name of a node ('#text' for text). */
export function tag(n: XNode): string {
  for (const k of Object.keys(n)) if (k !== ':@') return k;
  return '';
}

export function kids(n: XNode): XNode[] {
  const t = tag(n);
  const v = n[t];
  return Array.isArray(v) ? (v as XNode[]) : [];
}

export function attr(n: XNode, name: string): string | undefined {
  const a = n[':@'] as Record<string, string> | undefined;
  const v = a?.[name];
  return v === undefined ? undefined : String(v);
}

export function textNode(n: XNode): string | null {
  if ('#text' in n) return String(n['#text']);
  return null;
}

export function child(n: XNode, name: string): XNode | undefined {
  return kids(n).find((k) => tag(k) === name);
}

export function children(n: XNode, name: string): XNode[] {
  return kids(n).filter((k) => tag(k) === name);
}

export function root(nodes: XNode[], name?: string): XNode | undefined {
  return nodes.find((n) => (name ? tag(n) === name : tag(n) !== '#text' && tag(n) !== ''));
}

/** First descendant with this name (depth-first). */
export function find(n: XNode, name: string): XNode | undefined {
  for (const k of kids(n)) {
    if (tag(k) === name) return k;
    const f = find(k, name);
    if (f) return f;
  }
  return undefined;
}

/** All text below a node, concatenated. */
export function allText(n: XNode): string {
  const t = textNode(n);
  if (t !== null) return t;
  let s = '';
  for (const k of kids(n)) s += allText(k);
  return s;
}

/** Resolves a relationship target against the folder of its source part. */
export function resolvePart(sourcePart: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const base = sourcePart.includes('/') ? sourcePart.slice(0, sourcePart.lastIndexOf('/')).split('/') : [];
  for (const seg of target.split('/')) {
    if (seg === '..') base.pop();
    else if (seg !== '.' && seg !== '') base.push(seg);
  }
  return base.join('/');
}

export function relsPathOf(part: string): string {
  const i = part.lastIndexOf('/');
  return i < 0 ? `_rels/${part}.rels` : `${part.slice(0, i)}/_rels/${part.slice(i + 1)}.rels`;
}

export interface Rel {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

export function parseRels(xml: string | null, sourcePart: string): Map<string, Rel> {
  const out = new Map<string, Rel>();
  if (!xml) return out;
  const r = root(parseXml(xml, relsPathOf(sourcePart)), 'Relationships');
  if (!r) return out;
  for (const rel of children(r, 'Relationship')) {
    const id = attr(rel, 'Id') ?? '';
    const external = attr(rel, 'TargetMode') === 'External';
    const raw = attr(rel, 'Target') ?? '';
    out.set(id, { id, type: attr(rel, 'Type') ?? '', target: external ? raw : resolvePart(sourcePart, raw), external });
  }
  return out;
}

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  emf: 'image/emf',
  wmf: 'image/wmf',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  wdp: 'image/vnd.ms-photo',
};

export function mediaType(part: string): string | null {
  const ext = part.split('.').pop()?.toLowerCase() ?? '';
  return MEDIA_TYPES[ext] ?? null;
}
