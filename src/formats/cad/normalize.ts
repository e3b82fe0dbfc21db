// Entity objects in libredwg-web's DwgDatabase shape (the DXF reader builds the same shape)
// → compact geometry, texts and dimensions of the drawing model.
import {
  dimensionTypeName,
  finite,
  mtextToPlain,
  polylineGeometry,
  pt,
  resolvePercentCodes,
  type CadDimension,
  type CadEntity,
  type CadGeometry,
  type CadText,
  type Pt,
} from './model.js';

type Any = Record<string, any>;

function pts(list: unknown, dims: 2 | 3 = 3): Pt[] {
  if (!Array.isArray(list)) return [];
  const out: Pt[] = [];
  for (const p of list) {
    const q = pt(p && typeof p === 'object' && 'vertex' in p ? (p as Any).vertex : p, dims);
    if (q) out.push(q);
  }
  return out;
}

function corners(e: Any): Pt[] {
  const out: Pt[] = [];
  for (const k of ['corner1', 'corner2', 'corner3', 'corner4']) {
    const p = pt(e[k]);
    if (p) out.push(p);
  }
  return out;
}

function hatchLoops(paths: unknown): { closed: boolean; points: Pt[]; bulges?: number[] }[] {
  if (!Array.isArray(paths)) return [];
  const loops: { closed: boolean; points: Pt[]; bulges?: number[] }[] = [];
  for (const path of paths as Any[]) {
    if (Array.isArray(path.vertices)) {
      const g = polylineGeometry(path.vertices, path.isClosed !== false);
      loops.push({ closed: g.closed as boolean, points: g.vertices as Pt[], ...(g.bulges ? { bulges: g.bulges as number[] } : {}) });
    } else if (Array.isArray(path.edges)) {
      // Edge loops: the vertex chain of the edges; arcs and ellipses contribute their end
      // points (curvature is not kept), splines their control points.
      const points: Pt[] = [];
      const push = (p: Pt | null) => {
        if (!p) return;
        const last = points[points.length - 1];
        if (!last || last[0] !== p[0] || last[1] !== p[1]) points.push(p);
      };
      for (const edge of path.edges as Any[]) {
        if (edge.type === 1) {
          push(pt(edge.start, 2));
          push(pt(edge.end, 2));
        } else if (edge.type === 2 && edge.center && typeof edge.radius === 'number') {
          const a0 = edge.startAngle ?? 0;
          const a1 = edge.endAngle ?? 0;
          const ccw = edge.isCCW !== false;
          const c = edge.center;
          const at = (a: number) => [c.x + edge.radius * Math.cos(a), c.y + edge.radius * Math.sin(a) * (ccw ? 1 : -1)];
          push(at(a0));
          push(at(a1));
        } else if (edge.type === 4) {
          for (const p of pts(edge.controlPoints, 2)) push(p);
        } else if (edge.type === 3 && edge.center && edge.end) {
          push(pt({ x: edge.center.x + edge.end.x, y: edge.center.y + edge.end.y }, 2));
        }
      }
      loops.push({ closed: true, points });
    }
  }
  return loops;
}

/** Compact geometry of one entity (kinds documented in schema.ts). */
export function entityGeometry(e: Any): CadGeometry {
  switch (e.type) {
    case 'LINE':
      return { kind: 'line', from: pt(e.startPoint), to: pt(e.endPoint) };
    case 'RAY':
    case 'XLINE':
      return { kind: e.type === 'RAY' ? 'ray' : 'xline', from: pt(e.firstPoint), direction: pt(e.unitDirection) };
    case 'POINT':
      return { kind: 'point', at: pt(e.position) };
    case 'CIRCLE':
      return { kind: 'circle', center: pt(e.center), radius: finite(e.radius) };
    case 'ARC':
      return { kind: 'arc', center: pt(e.center), radius: finite(e.radius), startAngle: finite(e.startAngle), endAngle: finite(e.endAngle) };
    case 'ELLIPSE':
      return {
        kind: 'ellipse',
        center: pt(e.center),
        majorAxis: pt(e.majorAxisEndPoint),
        ratio: finite(e.axisRatio),
        startAngle: finite(e.startAngle),
        endAngle: finite(e.endAngle),
      };
    case 'LWPOLYLINE':
      return polylineGeometry(
        (e.vertices ?? []).map((v: Any) => ({ ...v, z: e.elevation ?? 0 })),
        ((e.flag ?? 0) & 1) === 1,
      );
    case 'POLYLINE2D':
    case 'POLYLINE3D':
    case 'POLYLINE_PFACE':
    case 'POLYLINE_MESH':
    case 'POLYFACE':
    case 'POLYMESH':
      return polylineGeometry(e.vertices ?? [], ((e.flag ?? 0) & 1) === 1, e.type === 'POLYLINE2D' || e.type === 'POLYLINE3D' ? {} : { mesh: true });
    case 'SPLINE': {
      const g: CadGeometry = { kind: 'spline', degree: finite(e.degree), closed: ((e.flag ?? 0) & 1) === 1, controlPoints: pts(e.controlPoints) };
      const fit = pts(e.fitPoints);
      if (fit.length) g.fitPoints = fit;
      if (Array.isArray(e.knots) && e.knots.length) g.knots = e.knots;
      return g;
    }
    case 'TEXT':
      return { kind: 'text', at: pt(e.startPoint), height: finite(e.textHeight), rotation: finite(e.rotation) };
    case 'MTEXT':
      return { kind: 'text', at: pt(e.insertionPoint), height: finite(e.textHeight), rotation: finite(e.rotation), width: finite(e.rectWidth) };
    case 'ATTRIB':
    case 'ATTDEF':
      return { kind: 'text', at: pt(e.text?.startPoint), height: finite(e.text?.textHeight), rotation: finite(e.text?.rotation), tag: e.tag ?? null };
    case 'INSERT': {
      const g: CadGeometry = {
        kind: 'insert',
        block: e.name ?? null,
        at: pt(e.insertionPoint),
        scale: [e.xScale ?? 1, e.yScale ?? 1, e.zScale ?? 1],
        rotation: finite(e.rotation) ?? 0,
      };
      if ((e.columnCount ?? 0) > 1 || (e.rowCount ?? 0) > 1)
        g.array = { columns: e.columnCount, rows: e.rowCount, columnSpacing: e.columnSpacing, rowSpacing: e.rowSpacing };
      if (Array.isArray(e.attribs) && e.attribs.length) g.attributes = e.attribs.length;
      return g;
    }
    case 'DIMENSION':
      return {
        kind: 'dimension',
        block: e.name || null,
        definitionPoint: pt(e.definitionPoint),
        textPosition: pt(e.textPoint),
        measurement: finite(e.measurement),
      };
    case 'HATCH':
    case 'MPOLYGON':
      return { kind: 'hatch', pattern: e.patternName ?? null, solid: e.solidFill === 1, loops: hatchLoops(e.boundaryPaths) };
    case 'SOLID':
    case 'TRACE':
    case '3DFACE':
      return { kind: 'face', corners: corners(e) };
    case 'VIEWPORT':
      return { kind: 'viewport', center: pt(e.viewportCenter), width: finite(e.width), height: finite(e.height) };
    case 'WIPEOUT':
    case 'IMAGE': {
      const g: CadGeometry = { kind: 'image', at: pt(e.position), u: pt(e.uPixel), v: pt(e.vPixel), size: pt(e.imageSize, 2) };
      const clip = pts(e.clippingBoundaryPath, 2);
      if (clip.length) g.clip = clip;
      return g;
    }
    case 'MLINE':
      return { kind: 'polyline', closed: ((e.flags ?? 0) & 2) === 2, vertices: pts(e.vertices), multiline: true, scale: finite(e.scale) };
    case 'LEADER':
      return { kind: 'polyline', closed: false, vertices: pts(e.vertices), leader: true };
    case 'MULTILEADER': {
      const lines: Pt[][] = [];
      for (const s of e.leaderSections ?? []) for (const l of s.leaderLines ?? []) lines.push(pts(l.vertices));
      return { kind: 'leader', lines, at: pt(e.textLocation ?? e.contentBasePosition) };
    }
    case 'TOLERANCE':
      return { kind: 'text', at: pt(e.insertionPoint), height: null, rotation: null };
    case 'ACAD_TABLE':
      return { kind: 'table', at: pt(e.startPoint), rows: finite(e.rowCount), columns: finite(e.columnCount), block: e.blockRecordHandle ?? null };
    case 'SHAPE':
      return { kind: 'point', at: pt(e.insertionPoint ?? e.position), name: e.name ?? null };
    default:
      return { kind: 'other' };
  }
}

function textEntry(
  e: Any,
  block: string,
  kind: CadText['kind'],
  raw: unknown,
  position: Pt | null,
  height: unknown,
  rotation: unknown,
  extra: Partial<CadText> = {},
): CadText | null {
  if (typeof raw !== 'string') return null;
  const isMtext = kind === 'MTEXT' || kind === 'MULTILEADER' || kind === 'TOLERANCE' || kind === 'DIMENSION' || kind === 'ACAD_TABLE' || (extra as Any).mtext;
  delete (extra as Any).mtext;
  return {
    kind,
    text: raw,
    plainText: isMtext ? mtextToPlain(raw) : resolvePercentCodes(raw),
    position,
    height: finite(height),
    rotation: finite(rotation),
    layer: String(e.layer ?? '0'),
    block,
    handle: e.handle ?? null,
    ...extra,
  };
}

/** Text-bearing values of an entity (ATTRIBs of an INSERT are entities of their own). */
export function textsOf(e: Any, block: string, insertHandle: string | null = null): CadText[] {
  const out: (CadText | null)[] = [];
  switch (e.type) {
    case 'TEXT':
      out.push(textEntry(e, block, 'TEXT', e.text, pt(e.startPoint), e.textHeight, e.rotation));
      break;
    case 'MTEXT':
      out.push(textEntry(e, block, 'MTEXT', e.text, pt(e.insertionPoint), e.textHeight, e.rotation));
      break;
    case 'ATTRIB':
    case 'ATTDEF': {
      const t = e.text ?? {};
      const mtext = e.mtext && typeof e.mtext.text === 'string' && e.mtext.text ? e.mtext : null;
      const raw = mtext ? mtext.text : e.type === 'ATTDEF' ? (t.text ?? e.defaultValue ?? '') : t.text;
      out.push(
        textEntry(e, block, e.type, raw ?? '', pt(t.startPoint), t.textHeight, t.rotation, {
          tag: e.tag ?? '',
          ...(e.type === 'ATTRIB' ? { insertHandle } : {}),
          ...(mtext ? { mtext: true } : {}),
        } as Partial<CadText>),
      );
      break;
    }
    case 'DIMENSION':
      if (e.text && e.text !== '<>') out.push(textEntry(e, block, 'DIMENSION', e.text, pt(e.textPoint), null, e.textRotation));
      break;
    case 'MULTILEADER':
      if (e.textContent) out.push(textEntry(e, block, 'MULTILEADER', e.textContent, pt(e.textLocation ?? e.contentBasePosition), e.textHeight, null));
      break;
    case 'TOLERANCE':
      if (e.text) out.push(textEntry(e, block, 'TOLERANCE', e.text, pt(e.insertionPoint), null, null));
      break;
    case 'ACAD_TABLE':
      for (const c of e.cells ?? [])
        if (c && typeof c.text === 'string' && c.text) out.push(textEntry(e, block, 'ACAD_TABLE', c.text, pt(e.startPoint), c.textHeight, c.rotation));
      break;
  }
  return out.filter((t): t is CadText => t !== null);
}

export function dimensionOf(e: Any, block: string): CadDimension | null {
  if (e.type !== 'DIMENSION') return null;
  return {
    handle: e.handle ?? null,
    layer: String(e.layer ?? '0'),
    block,
    dimensionType: dimensionTypeName(e.dimensionType),
    measurement: finite(e.measurement),
    text: typeof e.text === 'string' ? e.text : '',
    style: e.styleName || null,
    definitionPoint: pt(e.definitionPoint),
    textPosition: pt(e.textPoint),
    geometryBlock: e.name || null,
  };
}

export function toCadEntity(e: Any, block: string): CadEntity {
  return {
    handle: e.handle ?? null,
    type: String(e.type ?? 'UNKNOWN'),
    layer: String(e.layer ?? '0'),
    block,
    color: typeof e.colorIndex === 'number' ? e.colorIndex : null,
    lineType: e.lineType || null,
    geometry: entityGeometry(e),
  };
}
