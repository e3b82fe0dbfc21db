// DXF reader (ASCII and binary) → drawing model. Our own group-code reader: dxf-parser drops
// HATCH and rejects binary DXF (PACKAGES.md), and GDAL explodes blocks. Every entity is kept
// (unknown types are counted and listed with kind 'other'); entities are built in the same
// shape as libredwg-web's DwgDatabase so normalize.ts serves DWG and DXF alike.
import { readFile } from 'node:fs/promises';
import { ExtractionError } from '../kit/types.js';
import {
  checkCadSize,
  countInto,
  decodeUnicodeEscapes,
  Extent,
  isModelSpace,
  isPaperSpace,
  pt,
  unitsOf,
  validExtent,
  type CadBlock,
  type CadDocument,
  type CadLayer,
  type CadLayout,
  type Pt,
} from './model.js';
import { dimensionOf, textsOf, toCadEntity } from './normalize.js';
import { BINARY_SENTINEL, decodeText, readAsciiTags, readBinaryTags, type Tags, type Val } from './dxf-tags.js';

const DEG = Math.PI / 180;

/** One record: the group codes from a `0 TYPE` up to the next `0`. */
class Rec {
  constructor(
    public readonly type: string,
    public readonly codes: number[],
    public readonly values: Val[],
  ) {}
  get(code: number): Val | undefined {
    const i = this.codes.indexOf(code);
    return i < 0 ? undefined : this.values[i];
  }
  str(code: number): string | undefined {
    const v = this.get(code);
    return v === undefined ? undefined : decodeUnicodeEscapes(String(v));
  }
  num(code: number): number | undefined {
    const v = this.get(code);
    return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;
  }
  all(code: number): Val[] {
    const out: Val[] = [];
    for (let i = 0; i < this.codes.length; i++) if (this.codes[i] === code) out.push(this.values[i]);
    return out;
  }
  point(code: number): { x: number; y: number; z: number } | undefined {
    const x = this.num(code);
    const y = this.num(code + 10);
    if (x === undefined || y === undefined) return undefined;
    return { x, y, z: this.num(code + 20) ?? 0 };
  }
  /**
   * The group codes of one subclass (after its `100` marker, up to the next): a LAYOUT's own
   * name (1) follows its plot settings' page setup name (also 1). The whole record without one.
   */
  subclass(name: string): Rec {
    let start = -1;
    for (let i = 0; i < this.codes.length; i++) if (this.codes[i] === 100 && String(this.values[i]).trim() === name) start = i + 1;
    if (start < 0) return this;
    let end = start;
    while (end < this.codes.length && this.codes[end] !== 100) end++;
    return new Rec(this.type, this.codes.slice(start, end), this.values.slice(start, end));
  }
  /** Every point of one base code in order (e.g. LWPOLYLINE vertices, with bulges from 42). */
  points(code: number, withBulge = false): { x: number; y: number; z: number; bulge?: number }[] {
    const out: { x: number; y: number; z: number; bulge?: number }[] = [];
    let cur: { x: number; y: number; z: number; bulge?: number } | null = null;
    for (let i = 0; i < this.codes.length; i++) {
      const c = this.codes[i];
      const v = Number(this.values[i]);
      if (c === code) {
        cur = { x: v, y: 0, z: 0 };
        out.push(cur);
      } else if (cur && c === code + 10) cur.y = v;
      else if (cur && c === code + 20) cur.z = v;
      else if (cur && withBulge && c === 42) cur.bulge = v;
    }
    return out;
  }
}

function records(tags: Tags, from: number, to: number): Rec[] {
  const out: Rec[] = [];
  let i = from;
  while (i < to) {
    if (tags.codes[i] !== 0) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < to && tags.codes[j] !== 0) j++;
    out.push(new Rec(String(tags.values[i]).trim(), tags.codes.slice(i + 1, j), tags.values.slice(i + 1, j)));
    i = j;
  }
  return out;
}

function sections(tags: Tags): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  const { codes, values } = tags;
  for (let i = 0; i < codes.length; i++) {
    if (codes[i] === 0 && String(values[i]).trim() === 'SECTION' && codes[i + 1] === 2) {
      const name = String(values[i + 1])
        .trim()
        .toUpperCase();
      let j = i + 2;
      while (j < codes.length && !(codes[j] === 0 && String(values[j]).trim() === 'ENDSEC')) j++;
      out.set(name, [i + 2, j]);
      i = j;
    }
  }
  return out;
}

function header(tags: Tags, range: [number, number] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!range) return out;
  const { codes, values } = tags;
  let name: string | null = null;
  let pending: Record<number, Val> = {};
  const flush = () => {
    if (!name) return;
    const keys = Object.keys(pending).map(Number);
    if (keys.some((k) => k >= 10 && k <= 39)) {
      out[name] = { x: Number(pending[10] ?? pending[11] ?? 0), y: Number(pending[20] ?? pending[21] ?? 0), z: Number(pending[30] ?? pending[31] ?? 0) };
    } else if (keys.length) out[name] = pending[keys[0]];
  };
  for (let i = range[0]; i < range[1]; i++) {
    if (codes[i] === 9) {
      flush();
      name = String(values[i]).trim().replace(/^\$/, '');
      pending = {};
    } else if (name) pending[codes[i]] = values[i];
  }
  flush();
  return out;
}

const rad = (deg: number | undefined) => (deg === undefined ? undefined : deg * DEG);

function polylineType(flag: number): string {
  if (flag & 8) return 'POLYLINE3D';
  if (flag & 16) return 'POLYLINE_MESH';
  if (flag & 64) return 'POLYLINE_PFACE';
  return 'POLYLINE2D';
}

function hatchPaths(r: Rec): unknown[] {
  const { codes, values } = r;
  const start = codes.indexOf(91);
  if (start < 0) return [];
  const paths: unknown[] = [];
  let i = start + 1;
  const n = Number(values[start]);
  const num = (k: number) => Number(values[k]);
  for (let p = 0; p < n && i < codes.length; p++) {
    while (i < codes.length && codes[i] !== 92) i++;
    if (i >= codes.length) break;
    const flag = num(i);
    i++;
    if (flag & 2) {
      let closed = true;
      const vertices: { x: number; y: number; bulge: number }[] = [];
      while (i < codes.length && codes[i] !== 93) {
        if (codes[i] === 73) closed = num(i) !== 0;
        i++;
      }
      const nv = num(i);
      i++;
      while (i < codes.length && vertices.length <= nv) {
        const c = codes[i];
        if (c === 10) vertices.push({ x: num(i), y: 0, bulge: 0 });
        else if (c === 20 && vertices.length) vertices[vertices.length - 1].y = num(i);
        else if (c === 42 && vertices.length) vertices[vertices.length - 1].bulge = num(i);
        else if (c !== 42 && vertices.length >= nv) break;
        i++;
      }
      paths.push({ boundaryPathTypeFlag: flag, isClosed: closed, vertices });
    } else {
      while (i < codes.length && codes[i] !== 93) i++;
      const ne = num(i);
      i++;
      const edges: Record<string, any>[] = [];
      for (let e = 0; e < ne && i < codes.length; e++) {
        while (i < codes.length && codes[i] !== 72) i++;
        const type = num(i);
        i++;
        const edge: Record<string, any> = { type };
        const cps: { x: number; y: number }[] = [];
        while (i < codes.length && codes[i] !== 72 && codes[i] !== 92 && codes[i] !== 97 && codes[i] !== 75) {
          const c = codes[i];
          const v = num(i);
          if (type === 1) {
            if (c === 10) edge.start = { x: v, y: 0 };
            else if (c === 20 && edge.start) edge.start.y = v;
            else if (c === 11) edge.end = { x: v, y: 0 };
            else if (c === 21 && edge.end) edge.end.y = v;
          } else if (type === 2 || type === 3) {
            if (c === 10) edge.center = { x: v, y: 0 };
            else if (c === 20 && edge.center) edge.center.y = v;
            else if (c === 11) edge.end = { x: v, y: 0 };
            else if (c === 21 && edge.end) edge.end.y = v;
            else if (c === 40) edge.radius = v;
            else if (c === 50) edge.startAngle = v * DEG;
            else if (c === 51) edge.endAngle = v * DEG;
            else if (c === 73) edge.isCCW = v !== 0;
          } else if (type === 4) {
            if (c === 10) cps.push({ x: v, y: 0 });
            else if (c === 20 && cps.length) cps[cps.length - 1].y = v;
          }
          i++;
        }
        if (type === 4) edge.controlPoints = cps;
        edges.push(edge);
      }
      paths.push({ boundaryPathTypeFlag: flag, edges });
    }
  }
  return paths;
}

/** A record in libredwg-web's entity shape. */
function entityObject(r: Rec): Record<string, any> {
  const e: Record<string, any> = {
    type: r.type,
    handle: r.str(5) ?? null,
    layer: r.str(8) ?? '0',
    colorIndex: r.num(62) ?? 256,
    lineType: r.str(6) ?? '',
  };
  switch (r.type) {
    case 'LINE':
      e.startPoint = r.point(10);
      e.endPoint = r.point(11);
      break;
    case 'RAY':
    case 'XLINE':
      e.firstPoint = r.point(10);
      e.unitDirection = r.point(11);
      break;
    case 'POINT':
      e.position = r.point(10);
      break;
    case 'CIRCLE':
    case 'ARC':
      e.center = r.point(10);
      e.radius = r.num(40);
      e.startAngle = rad(r.num(50));
      e.endAngle = rad(r.num(51));
      break;
    case 'ELLIPSE':
      e.center = r.point(10);
      e.majorAxisEndPoint = r.point(11);
      e.axisRatio = r.num(40);
      e.startAngle = r.num(41);
      e.endAngle = r.num(42);
      break;
    case 'LWPOLYLINE':
      e.flag = r.num(70) ?? 0;
      e.elevation = r.num(38) ?? 0;
      e.vertices = r.points(10, true).map((v) => ({ x: v.x, y: v.y, bulge: v.bulge ?? 0 }));
      break;
    case 'SPLINE':
      e.flag = r.num(70) ?? 0;
      e.degree = r.num(71);
      e.knots = r.all(40).map(Number);
      e.controlPoints = r.points(10);
      e.fitPoints = r.points(11);
      break;
    case 'TEXT':
      e.text = r.str(1) ?? '';
      e.startPoint = r.point(10);
      e.textHeight = r.num(40);
      e.rotation = rad(r.num(50)) ?? 0;
      e.styleName = r.str(7) ?? 'Standard';
      break;
    case 'MTEXT': {
      e.text = decodeUnicodeEscapes(r.all(3).map(String).join('') + String(r.get(1) ?? ''));
      e.insertionPoint = r.point(10);
      e.textHeight = r.num(40);
      e.rectWidth = r.num(41);
      const dir = r.point(11);
      e.rotation = r.num(50) !== undefined ? rad(r.num(50)) : dir ? Math.atan2(dir.y, dir.x) : 0;
      break;
    }
    case 'ATTRIB':
    case 'ATTDEF':
      e.text = { text: r.str(1) ?? '', startPoint: r.point(10), textHeight: r.num(40), rotation: rad(r.num(50)) ?? 0 };
      e.tag = r.str(2) ?? '';
      if (r.type === 'ATTDEF') e.prompt = r.str(3) ?? '';
      break;
    case 'INSERT':
      e.name = r.str(2) ?? '';
      e.insertionPoint = r.point(10);
      e.xScale = r.num(41) ?? 1;
      e.yScale = r.num(42) ?? 1;
      e.zScale = r.num(43) ?? 1;
      e.rotation = rad(r.num(50)) ?? 0;
      e.columnCount = r.num(70) ?? 0;
      e.rowCount = r.num(71) ?? 0;
      e.columnSpacing = r.num(44) ?? 0;
      e.rowSpacing = r.num(45) ?? 0;
      e.attribs = [];
      break;
    case 'DIMENSION':
      e.name = r.str(2) ?? '';
      e.definitionPoint = r.point(10);
      e.textPoint = r.point(11);
      e.dimensionType = r.num(70) ?? 0;
      e.measurement = r.num(42);
      e.text = r.str(1) ?? '';
      e.styleName = r.str(3) ?? '';
      e.textRotation = rad(r.num(53));
      break;
    case 'HATCH':
    case 'MPOLYGON':
      e.patternName = r.str(2) ?? '';
      e.solidFill = r.num(70) ?? 0;
      e.boundaryPaths = hatchPaths(r);
      break;
    case 'SOLID':
    case 'TRACE':
    case '3DFACE':
      e.corner1 = r.point(10);
      e.corner2 = r.point(11);
      e.corner3 = r.point(12);
      e.corner4 = r.point(13);
      break;
    case 'VIEWPORT':
      e.viewportCenter = r.point(10);
      e.width = r.num(40);
      e.height = r.num(41);
      break;
    case 'IMAGE':
    case 'WIPEOUT':
      e.position = r.point(10);
      e.uPixel = r.point(11);
      e.vPixel = r.point(12);
      e.imageSize = r.point(13);
      e.clippingBoundaryPath = r.points(14);
      break;
    case 'MLINE':
      e.flags = r.num(71) ?? 0;
      e.scale = r.num(40);
      e.vertices = r.points(11);
      break;
    case 'LEADER':
      e.vertices = r.points(10);
      break;
    case 'MULTILEADER': {
      e.textContent = r.str(304) ?? '';
      e.contentBasePosition = r.point(10);
      e.textLocation = r.point(12);
      const lines: { x: number; y: number; z: number }[][] = [];
      // LEADER_LINE{ … 10/20/30 vertices … }
      let cur: { x: number; y: number; z: number }[] | null = null;
      for (let i = 0; i < r.codes.length; i++) {
        const c = r.codes[i];
        const v = r.values[i];
        if (c === 304 && v === 'LEADER_LINE{') cur = [];
        else if (c === 305 && cur) {
          lines.push(cur);
          cur = null;
        } else if (cur && c === 10) cur.push({ x: Number(v), y: 0, z: 0 });
        else if (cur && c === 20 && cur.length) cur[cur.length - 1].y = Number(v);
        else if (cur && c === 30 && cur.length) cur[cur.length - 1].z = Number(v);
      }
      if (e.textContent === 'LEADER{' || e.textContent === 'LEADER_LINE{' || e.textContent === 'CONTEXT_DATA{') e.textContent = '';
      e.leaderSections = [{ leaderLines: lines.map((vertices) => ({ vertices })) }];
      break;
    }
    case 'TOLERANCE':
      e.text = r.str(1) ?? '';
      e.insertionPoint = r.point(10);
      break;
    case 'ACAD_TABLE':
      e.startPoint = r.point(10);
      e.rowCount = r.num(91);
      e.columnCount = r.num(92);
      e.cells = r.all(1).map((t) => ({ text: decodeUnicodeEscapes(String(t)) }));
      break;
    case 'SHAPE':
      e.insertionPoint = r.point(10);
      e.name = r.str(2) ?? '';
      break;
  }
  return e;
}

/** Groups a run of entity records into entities, folding VERTEX/ATTRIB sequences into their parent. */
function assemble(recs: Rec[], warnings: string[]): { e: Record<string, any>; rec: Rec }[] {
  const out: { e: Record<string, any>; rec: Rec }[] = [];
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    if (r.type === 'SEQEND' || r.type === 'VERTEX') continue; // stray
    if (r.type === 'POLYLINE') {
      const flag = r.num(70) ?? 0;
      const vertices: { x: number; y: number; z: number; bulge: number }[] = [];
      let j = i + 1;
      for (; j < recs.length && recs[j].type === 'VERTEX'; j++) {
        const v = recs[j];
        const vflag = v.num(70) ?? 0;
        if (vflag & 128 && !(vflag & 64)) continue; // polyface face record
        const p = v.point(10);
        if (p) vertices.push({ ...p, bulge: v.num(42) ?? 0 });
      }
      if (j < recs.length && recs[j].type === 'SEQEND') j++;
      const e = entityObject(r);
      e.type = polylineType(flag);
      e.flag = flag;
      e.vertices = vertices;
      out.push({ e, rec: r });
      i = j - 1;
      continue;
    }
    const e = entityObject(r);
    out.push({ e, rec: r });
    if (r.type === 'INSERT' && (r.num(66) ?? 0) === 1) {
      let j = i + 1;
      for (; j < recs.length && recs[j].type === 'ATTRIB'; j++) e.attribs.push(entityObject(recs[j]));
      if (j < recs.length && recs[j].type === 'SEQEND') j++;
      else warnings.push(`INSERT ${e.handle ?? ''} announces attributes but has no SEQEND`);
      i = j - 1;
    }
  }
  return out;
}

export async function readDxf(filePath: string, maxBytes: number): Promise<{ doc: CadDocument; binary: boolean; encoding: string }> {
  await checkCadSize(filePath, maxBytes);
  const buf = await readFile(filePath);
  const binary = buf.length >= BINARY_SENTINEL.length && buf.subarray(0, BINARY_SENTINEL.length).equals(BINARY_SENTINEL);
  const warnings: string[] = [];
  let tags: Tags;
  let encoding = 'utf-8';
  if (binary) tags = readBinaryTags(buf);
  else {
    const dec = decodeText(buf);
    encoding = dec.encoding;
    const r = readAsciiTags(dec.text);
    tags = r.tags;
    warnings.push(...r.warnings);
  }
  const secs = sections(tags);
  if (!secs.size) throw new ExtractionError('not a DXF drawing: no SECTION found');
  if (!secs.has('ENTITIES') && !secs.has('BLOCKS')) throw new ExtractionError('malformed DXF: neither an ENTITIES nor a BLOCKS section');
  if (tags.codes.length && !(tags.codes[tags.codes.length - 1] === 0 && String(tags.values[tags.values.length - 1]).trim() === 'EOF')) {
    warnings.push('the DXF has no EOF marker: it may be truncated');
  }

  const hdr = header(tags, secs.get('HEADER'));
  const acadver = typeof hdr.ACADVER === 'string' ? hdr.ACADVER.trim() : null;

  // TABLES: layers and block records.
  const layers: CadLayer[] = [];
  const btrByHandle = new Map<string, { name: string; layout: string | null }>();
  const tablesRange = secs.get('TABLES');
  if (tablesRange) {
    for (const r of records(tags, tablesRange[0], tablesRange[1])) {
      if (r.type === 'LAYER') {
        const color = r.num(62) ?? 7;
        const flags = r.num(70) ?? 0;
        const tc = r.num(420);
        layers.push({
          name: r.str(2) ?? '',
          colorIndex: Math.abs(color),
          trueColor: tc !== undefined ? '#' + (tc & 0xffffff).toString(16).padStart(6, '0') : null,
          lineType: r.str(6) ?? null,
          lineWeight: r.num(370) ?? null,
          on: color >= 0,
          frozen: (flags & 1) === 1,
          locked: (flags & 4) === 4,
          plot: r.get(290) === undefined ? null : r.get(290) !== false && r.get(290) !== 0,
        });
      } else if (r.type === 'BLOCK_RECORD') {
        const h = r.str(5);
        if (h) btrByHandle.set(h.toUpperCase(), { name: r.str(2) ?? '', layout: r.str(340) ?? null });
      }
    }
  }

  // OBJECTS: layouts.
  const layouts: CadLayout[] = [];
  const layoutByHandle = new Map<string, string>();
  const objectsRange = secs.get('OBJECTS');
  if (objectsRange) {
    for (const r of records(tags, objectsRange[0], objectsRange[1])) {
      if (r.type !== 'LAYOUT') continue;
      const h = r.str(5);
      const l = r.subclass('AcDbLayout');
      const name = l.str(1) ?? '';
      if (h) layoutByHandle.set(h.toUpperCase(), name);
      const btr = l.str(330) ?? null; // the layout's block record (model or paper space)
      const lim = [pt(l.point(10)), pt(l.point(11))];
      const ext = validExtent(pt(l.point(14)), pt(l.point(15)));
      layouts.push({
        name,
        tabOrder: l.num(71) ?? null,
        block: btr ? (btrByHandle.get(btr.toUpperCase())?.name ?? null) : null,
        limits: lim[0] && lim[1] ? { min: lim[0], max: lim[1] } : null,
        extents: ext,
      });
    }
  }

  const doc: CadDocument = {
    format: 'dxf',
    engine: 'docparse DXF reader (ASCII and binary group codes)',
    fileVersion: { code: acadver, release: acadver ? (RELEASES[acadver] ?? null) : null },
    codepage: typeof hdr.DWGCODEPAGE === 'string' ? hdr.DWGCODEPAGE.trim().toLowerCase() : null,
    units: unitsOf(hdr.INSUNITS, hdr.MEASUREMENT),
    extents: validExtent(pt(hdr.EXTMIN), pt(hdr.EXTMAX)),
    headerVariables: headerSubset(hdr),
    layers,
    blocks: [],
    layouts,
    entityCounts: {},
    entityCount: 0,
    texts: [],
    dimensions: [],
    entities: [],
    warnings,
  };

  const refs = new Map<string, number>();
  const extent = new Extent();
  const blockByName = new Map<string, CadBlock>();
  const addEntity = (e: Record<string, any>, block: string, insertHandle: string | null) => {
    const inSpace = isModelSpace(block) || isPaperSpace(block);
    if (inSpace) {
      doc.entityCount++;
      countInto(doc.entityCounts, e.type);
    }
    const b = blockByName.get(block.toUpperCase());
    if (b) {
      b.entityCount++;
      countInto(b.entityCounts, e.type);
    }
    const ce = toCadEntity(e, block);
    doc.entities.push(ce);
    if (isModelSpace(block)) for (const k of ['from', 'to', 'at', 'center'] as const) extent.add((ce.geometry[k] as Pt | null | undefined) ?? null);
    doc.texts.push(...textsOf(e, block, insertHandle));
    const d = dimensionOf(e, block);
    if (d) doc.dimensions.push(d);
    if (e.type === 'INSERT' && e.name) refs.set(e.name, (refs.get(e.name) ?? 0) + 1);
  };
  const addAll = (list: { e: Record<string, any> }[], owner: (e: Record<string, any>, i: number) => string) => {
    list.forEach(({ e }, i) => {
      const block = owner(e, i);
      addEntity(e, block, null);
      if (e.type === 'INSERT') for (const a of e.attribs ?? []) addEntity(a, block, e.handle ?? null);
    });
  };

  // BLOCKS
  const blocksRange = secs.get('BLOCKS');
  if (blocksRange) {
    const recs = records(tags, blocksRange[0], blocksRange[1]);
    for (let i = 0; i < recs.length; i++) {
      const r = recs[i];
      if (r.type !== 'BLOCK') continue;
      let j = i + 1;
      while (j < recs.length && recs[j].type !== 'ENDBLK' && recs[j].type !== 'BLOCK') j++;
      const name = r.str(2) ?? r.str(3) ?? '';
      const flags = r.num(70) ?? 0;
      const owner = r.str(330);
      const btr = owner ? btrByHandle.get(owner.toUpperCase()) : undefined;
      const block: CadBlock = {
        name,
        handle: owner ?? r.str(5) ?? null,
        flags,
        anonymous: (flags & 1) === 1 || name.startsWith('*'),
        xref: (flags & 4) === 4,
        basePoint: pt(r.point(10)),
        description: r.str(4) || null,
        layout: btr?.layout ? (layoutByHandle.get(btr.layout.toUpperCase()) ?? null) : null,
        entityCount: 0,
        entityCounts: {},
        references: 0,
      };
      if (!blockByName.has(name.toUpperCase())) {
        doc.blocks.push(block);
        blockByName.set(name.toUpperCase(), block);
      }
      addAll(assemble(recs.slice(i + 1, j), warnings), () => name);
      i = j;
    }
  }

  // ENTITIES: model space, and the active paper space (group 67 = 1 or owner *Paper_Space).
  const entitiesRange = secs.get('ENTITIES');
  if (entitiesRange) {
    const list = assemble(records(tags, entitiesRange[0], entitiesRange[1]), warnings);
    const recOf = new Map(list.map((x) => [x.e, x.rec]));
    const paper = doc.blocks.find((b) => /^\*paper_space$/i.test(b.name))?.name ?? '*Paper_Space';
    const model = doc.blocks.find((b) => isModelSpace(b.name))?.name ?? '*Model_Space';
    addAll(list, (e) => {
      const rec = recOf.get(e)!;
      const ownerHandle = rec.str(330);
      const owner = ownerHandle ? btrByHandle.get(ownerHandle.toUpperCase())?.name : undefined;
      if (owner && (isModelSpace(owner) || isPaperSpace(owner))) return owner;
      return rec.num(67) === 1 ? paper : model;
    });
  }
  for (const b of doc.blocks) b.references = refs.get(b.name) ?? 0;
  if (!doc.extents) doc.extents = extent.value;
  return { doc, binary, encoding };
}

const RELEASES: Record<string, string> = {
  AC1006: 'AutoCAD Release 10',
  AC1009: 'AutoCAD Release 11/12',
  AC1012: 'AutoCAD Release 13',
  AC1014: 'AutoCAD Release 14',
  AC1015: 'AutoCAD 2000',
  AC1018: 'AutoCAD 2004',
  AC1021: 'AutoCAD 2007',
  AC1024: 'AutoCAD 2010',
  AC1027: 'AutoCAD 2013',
  AC1032: 'AutoCAD 2018',
};

const HEADER_KEEP = [
  'ACADVER',
  'INSBASE',
  'EXTMIN',
  'EXTMAX',
  'LIMMIN',
  'LIMMAX',
  'INSUNITS',
  'MEASUREMENT',
  'LUNITS',
  'LUPREC',
  'AUNITS',
  'ANGBASE',
  'ANGDIR',
  'DIMSCALE',
  'LTSCALE',
  'TEXTSIZE',
  'TEXTSTYLE',
  'CLAYER',
  'DWGCODEPAGE',
  'TDCREATE',
  'TDUPDATE',
  'FINGERPRINTGUID',
  'VERSIONGUID',
  'HANDSEED',
];

function headerSubset(h: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of HEADER_KEEP) {
    const v = h[k];
    if (v === undefined || v === '') continue;
    out[k] = typeof v === 'object' ? pt(v) : typeof v === 'string' ? v.trim() : v;
  }
  return out;
}
