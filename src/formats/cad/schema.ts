// JSON Schema (TypeBox) of `content` for the CAD family (document_format 'dwg' and 'dxf').
//
// Conventions:
// - A point is [x, y] or [x, y, z] (z left out when it is 0), in drawing units (`units`).
// - Angles are radians (DXF degrees are converted).
// - `entityCounts`/`entityCount` cover model space and paper space (block records
//   *Model_Space and *Paper_Space*), ATTRIBs included as entities; block definitions are
//   counted per block in `blocks[].entityCounts`.
// - `entities` lists every entity of the drawing, model space, paper spaces and block
//   definitions alike; `block` names the owner. Its `geometry.kind` is one of:
//     line {from,to} · ray|xline {from,direction} · point {at} · circle {center,radius}
//     arc {center,radius,startAngle,endAngle} · ellipse {center,majorAxis (relative),ratio,startAngle,endAngle}
//     polyline {closed,vertices[,bulges][,mesh|multiline|leader]} · spline {degree,closed,controlPoints[,fitPoints][,knots]}
//     text {at,height,rotation} · insert {block,at,scale,rotation[,attributes][,array]}
//     dimension {block,definitionPoint,textPosition,measurement} · hatch {pattern,solid,loops[{closed,points[,bulges]}]}
//     face {corners} · viewport {center,width,height} · image {at,u,v,size[,clip]} · leader {lines,at}
//     table {at,rows,columns} · other {} (type known, geometry not decoded)
//   Hatch edge loops keep the vertex chain; arc/ellipse edges contribute their end points.
// - `entities`, `texts` and `dimensions` carry `provenance` { layout, handle } (provenance.ts):
//   the layout of the owning block record (none for a block definition) and the handle.
import { Type, type Static } from '@sinclair/typebox';
import { ProvenanceSchema } from '../kit/provenance.js';

const Point = Type.Array(Type.Number(), { minItems: 2, maxItems: 3, description: '[x, y] or [x, y, z]' });
const NullablePoint = Type.Union([Point, Type.Null()]);
const Box = Type.Object({ min: Point, max: Point });
const Counts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));

export const CadLayerSchema = Type.Object({
  name: Type.String(),
  colorIndex: Type.Union([Type.Integer(), Type.Null()], { description: 'ACI colour 1–255 (negative in the file when the layer is off)' }),
  trueColor: Type.Union([Type.String(), Type.Null()], { description: '#rrggbb when the layer has a true colour' }),
  lineType: Type.Union([Type.String(), Type.Null()]),
  lineWeight: Type.Union([Type.Number(), Type.Null()]),
  on: Type.Boolean(),
  frozen: Type.Boolean(),
  locked: Type.Boolean(),
  plot: Type.Union([Type.Boolean(), Type.Null()]),
});

export const CadBlockSchema = Type.Object({
  name: Type.String(),
  handle: Type.Union([Type.String(), Type.Null()]),
  flags: Type.Integer(),
  anonymous: Type.Boolean(),
  xref: Type.Boolean(),
  basePoint: NullablePoint,
  description: Type.Union([Type.String(), Type.Null()]),
  layout: Type.Union([Type.String(), Type.Null()]),
  entityCount: Type.Integer({ minimum: 0 }),
  entityCounts: Counts,
  references: Type.Integer({ minimum: 0, description: 'INSERTs referencing this block' }),
});

export const CadLayoutSchema = Type.Object({
  name: Type.String(),
  tabOrder: Type.Union([Type.Integer(), Type.Null()]),
  block: Type.Union([Type.String(), Type.Null()]),
  limits: Type.Union([Box, Type.Null()]),
  extents: Type.Union([Box, Type.Null()]),
});

export const CadTextSchema = Type.Object({
  kind: Type.Union(['TEXT', 'MTEXT', 'ATTRIB', 'ATTDEF', 'DIMENSION', 'MULTILEADER', 'TOLERANCE', 'ACAD_TABLE'].map((k) => Type.Literal(k))),
  text: Type.String({ description: 'as stored (MTEXT formatting codes kept)' }),
  plainText: Type.String({ description: 'formatting codes and %%-codes resolved' }),
  position: NullablePoint,
  height: Type.Union([Type.Number(), Type.Null()]),
  rotation: Type.Union([Type.Number(), Type.Null()]),
  layer: Type.String(),
  block: Type.String(),
  handle: Type.Union([Type.String(), Type.Null()]),
  tag: Type.Optional(Type.String()),
  insertHandle: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  provenance: ProvenanceSchema,
});

export const CadDimensionSchema = Type.Object({
  handle: Type.Union([Type.String(), Type.Null()]),
  layer: Type.String(),
  block: Type.String(),
  dimensionType: Type.String({ description: 'linear, aligned, angular, diameter, radius, angular3point, ordinate' }),
  measurement: Type.Union([Type.Number(), Type.Null()], { description: 'measured value (drawing units; radians when angular)' }),
  text: Type.String({ description: "override text; '' or '<>' show the measurement" }),
  style: Type.Union([Type.String(), Type.Null()]),
  definitionPoint: NullablePoint,
  textPosition: NullablePoint,
  geometryBlock: Type.Union([Type.String(), Type.Null()]),
  provenance: ProvenanceSchema,
});

export const CadGeometrySchema = Type.Object({ kind: Type.String() }, { additionalProperties: true });

export const CadEntitySchema = Type.Object({
  handle: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  layer: Type.String(),
  block: Type.String(),
  color: Type.Union([Type.Integer(), Type.Null()], { description: 'ACI; 256 = BYLAYER, 0 = BYBLOCK' }),
  lineType: Type.Union([Type.String(), Type.Null()]),
  geometry: CadGeometrySchema,
  provenance: ProvenanceSchema,
});

export const CadContent = Type.Object({
  engine: Type.String(),
  fileVersion: Type.Object({
    code: Type.Union([Type.String(), Type.Null()], { description: 'e.g. AC1015; "binary" flag for DXF is in `dxf`' }),
    release: Type.Union([Type.String(), Type.Null()]),
  }),
  dxf: Type.Optional(Type.Object({ binary: Type.Boolean(), encoding: Type.String() })),
  codepage: Type.Union([Type.String(), Type.Null()]),
  units: Type.Object({
    insUnits: Type.Union([Type.Integer(), Type.Null()]),
    name: Type.String(),
    measurement: Type.Union([Type.Literal('metric'), Type.Literal('imperial'), Type.Null()]),
  }),
  extents: Type.Union([Box, Type.Null()]),
  headerVariables: Type.Record(Type.String(), Type.Unknown()),
  summary: Type.Object({
    layers: Type.Integer({ minimum: 0 }),
    blocks: Type.Integer({ minimum: 0 }),
    layouts: Type.Integer({ minimum: 0 }),
    entities: Type.Integer({ minimum: 0, description: 'model + paper space, ATTRIBs included' }),
    allEntities: Type.Integer({ minimum: 0, description: 'including block definitions' }),
    texts: Type.Integer({ minimum: 0 }),
    dimensions: Type.Integer({ minimum: 0 }),
  }),
  layers: Type.Array(CadLayerSchema),
  blocks: Type.Array(CadBlockSchema),
  layouts: Type.Array(CadLayoutSchema),
  entityCounts: Counts,
  fileEntityCounts: Type.Optional(
    Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description:
        'DWG only: every entity object in the file by LibreDWG object name (e.g. DIMENSION_LINEAR, POLYLINE_PFACE; all blocks, VERTEX/SEQEND included); names with no converted counterpart are listed in warnings',
    }),
  ),
  texts: Type.Array(CadTextSchema),
  dimensions: Type.Array(CadDimensionSchema),
  entities: Type.Array(CadEntitySchema),
});

export type CadContentType = Static<typeof CadContent>;
