// JSON Schema (TypeBox) of the `content` value of GIS artifacts (shapefile, mapinfo, filegdb,
// geopackage, geojson, kml, kmz, gml, gpx, flatgeobuf). One entry of `datasets` per logical
// dataset (layer) — the Document Unit of the GIS family.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ProvenanceSchema } from '../kit/provenance.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** [minX, minY, maxX, maxY]. */
const BBox = Type.Array(Type.Number(), { minItems: 4, maxItems: 4 });

export const GisCrs = Type.Object(
  {
    name: Nullable(Type.String()),
    /** EPSG code when the CRS is identified (for a BoundCRS, that of its source CRS). */
    epsg: Nullable(Type.Integer()),
    /** "AUTHORITY:CODE" when known (EPSG or another authority). */
    authority: Nullable(Type.String()),
    /** WKT2 (2019) as GDAL exports it. */
    wkt: Type.String(),
    projjson: Nullable(Type.Record(Type.String(), Type.Unknown())),
    /** GeographicCRS, ProjectedCRS, BoundCRS, EngineeringCRS, … */
    type: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

export const GisField = Type.Object(
  {
    name: Type.String(),
    /** OGR field type: Integer, Integer64, Real, String, Date, Time, DateTime, Binary, IntegerList, … */
    type: Type.String(),
    subType: Type.Optional(Type.String()),
    width: Type.Optional(Type.Integer()),
    precision: Type.Optional(Type.Integer()),
    nullable: Type.Optional(Type.Boolean()),
    alternativeName: Type.Optional(Type.String()),
    domainName: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const GisFeature = Type.Object(
  {
    type: Type.Literal('Feature'),
    /** The feature id (FID) as ogrinfo prints it; absent when the driver gives the feature none. */
    id: Type.Optional(Type.Union([Type.String(), Type.Number()])),
    properties: Nullable(Type.Record(Type.String(), Type.Unknown())),
    geometry: Nullable(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true },
);

export const GisDataset = Type.Object(
  {
    /** Layer name as GDAL reports it. */
    name: Type.String(),
    /**
     * `{ layer }`: the layer as ogrinfo lists it. A feature's provenance is this with
     * `feature: <its id>` — features carry no provenance object of their own (docs/formats/gis.md).
     */
    provenance: ProvenanceSchema,
    /** Path of the source inside the upload (member path in a ZIP, else the file name). */
    source: Type.String(),
    /** Concrete format of the source: shapefile, mapinfo, filegdb, geopackage, geojson, kml, gml, gpx, flatgeobuf. */
    format: Type.String(),
    /** GDAL driver short name, e.g. "ESRI Shapefile", "MapInfo File", "OpenFileGDB", "GPKG". */
    driver: Type.String(),
    /** Geometry type in ogrinfo's spelling: Point, LineStringZ, MultiPolygonM, Geometry (any), None (attribute table). */
    geometryType: Type.String(),
    geometryColumn: Nullable(Type.String()),
    crs: Nullable(GisCrs),
    featureCount: Type.Integer(),
    extent: Type.Object(
      {
        /** In the layer's own CRS; null for an empty or geometry-less layer. */
        native: Nullable(BBox),
        /** In WGS 84 longitude/latitude, computed from the exported features; null when not reprojectable. */
        wgs84: Nullable(BBox),
      },
      { additionalProperties: false },
    ),
    fields: Type.Array(GisField),
    /** Character encoding of the attributes when the driver reports it (.cpg, dBASE language id, MapInfo charset). */
    encoding: Nullable(Type.String()),
    /** GeoJSON features (RFC 7946: WGS 84 lon/lat) — or in native coordinates when featuresCrs is "native". */
    features: Type.Array(GisFeature),
    /** "EPSG:4326" when features were reprojected to WGS 84; "native" when the layer has no usable CRS. */
    featuresCrs: Type.Union([Type.Literal('EPSG:4326'), Type.Literal('native')]),
    featuresInlined: Type.Integer(),
    /** True when the inline cap (DOCPARSE_GIS_MAX_INLINE_FEATURES) stopped inlining before the end. */
    featuresTruncated: Type.Boolean(),
    /** Features exported but not inlined because of the cap. */
    featuresOmitted: Type.Integer(),
    featuresPart: Type.Optional(
      Type.String({
        description:
          'When featuresOmitted > 0: the part holding the omitted features as GeoJSON text sequence lines, at GET /api/v1/documents/{documentId}/parts/{featuresPart}.',
      }),
    ),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    warnings: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

export const GisSourceFailure = Type.Object(
  {
    source: Type.String(),
    format: Type.String(),
    error: Type.String(),
  },
  { additionalProperties: false },
);

export const GisContent = Type.Object(
  {
    /** Number of logical datasets (layers) reported = documentUnits. */
    datasetCount: Type.Integer(),
    /** Number of files/folders opened as datasets (a GeoPackage or geodatabase may hold many layers). */
    sourceCount: Type.Integer(),
    datasets: Type.Array(GisDataset),
    /** Sources found but unreadable; their layers are not counted. */
    failedSources: Type.Array(GisSourceFailure),
    /** Inline feature cap in force for this job. */
    maxInlineFeatures: Type.Integer(),
    /** True when any dataset's features were truncated by the cap. */
    featuresTruncated: Type.Boolean(),
  },
  { additionalProperties: false },
);

export type GisContent = Static<typeof GisContent>;
export type GisDataset = Static<typeof GisDataset>;
