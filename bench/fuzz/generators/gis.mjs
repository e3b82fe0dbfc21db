// Generated GIS seeds: GeoJSON, KML, GPX, GML, a KMZ, a FlatGeobuf, and a zipped pair of
// shapefiles (points and polylines, with .shx, .dbf, .prj and .cpg) written byte by byte.
import { geojson as fgbGeojson } from 'flatgeobuf';
import { zipOf } from '../zip.mjs';

const FEATURES = {
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', properties: { name: 'Point', n: 1, ok: true, when: '2024-01-01' }, geometry: { type: 'Point', coordinates: [2.35, 48.85] } },
    {
      type: 'Feature',
      properties: { name: 'Line', n: 2.5, ok: false, when: null },
      geometry: {
        type: 'LineString',
        coordinates: [
          [0, 0],
          [1, 1],
          [2, 0.5],
        ],
      },
    },
    {
      type: 'Feature',
      properties: { name: 'Holed', n: 3, ok: true, when: '2024-02-02' },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [4, 0],
            [4, 4],
            [0, 4],
            [0, 0],
          ],
          [
            [1, 1],
            [1, 2],
            [2, 2],
            [2, 1],
            [1, 1],
          ],
        ],
      },
    },
    {
      type: 'Feature',
      properties: { name: 'Multi', n: 4, ok: false, when: null },
      geometry: {
        type: 'MultiPoint',
        coordinates: [
          [10, 10],
          [11, 11],
        ],
      },
    },
  ],
};

const KML = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Generated</name>
<Folder><name>Places</name>
<Placemark><name>Paris</name><ExtendedData><Data name="pop"><value>2102650</value></Data></ExtendedData><Point><coordinates>2.3522,48.8566,0</coordinates></Point></Placemark>
<Placemark><name>Path</name><LineString><coordinates>0,0 1,1 2,0</coordinates></LineString></Placemark>
</Folder>
<Folder><name>Areas</name>
<Placemark><name>Square</name><Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,0 1,1 0,1 0,0</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>
</Folder></Document></kml>
`;

const GPX = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="fuzz" xmlns="http://www.topografix.com/GPX/1/1">
<wpt lat="48.85" lon="2.35"><ele>35</ele><name>Start</name><time>2024-01-01T10:00:00Z</time></wpt>
<rte><name>Route</name><rtept lat="48.0" lon="2.0"/><rtept lat="48.1" lon="2.1"/></rte>
<trk><name>Track</name><trkseg><trkpt lat="48.85" lon="2.35"><ele>35</ele></trkpt><trkpt lat="48.86" lon="2.36"><ele>36</ele></trkpt></trkseg></trk>
</gpx>
`;

const GML = `<?xml version="1.0" encoding="utf-8"?>
<ogr:FeatureCollection xmlns:ogr="http://ogr.maptools.org/" xmlns:gml="http://www.opengis.net/gml">
<gml:featureMember><ogr:places fid="places.0"><ogr:geometryProperty><gml:Point srsName="EPSG:4326"><gml:coordinates>2.35,48.85</gml:coordinates></gml:Point></ogr:geometryProperty><ogr:name>Paris</ogr:name><ogr:n>1</ogr:n></ogr:places></gml:featureMember>
<gml:featureMember><ogr:places fid="places.1"><ogr:geometryProperty><gml:Point srsName="EPSG:4326"><gml:coordinates>4.83,45.76</gml:coordinates></gml:Point></ogr:geometryProperty><ogr:name>Lyon</ogr:name><ogr:n>2</ogr:n></ogr:places></gml:featureMember>
</ogr:FeatureCollection>
`;

const PRJ_4326 =
  'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]';

/** .shp/.shx header: file code, length in 16-bit words, version, shape type, bounding box. */
function shpHeader(lengthBytes, shapeType, box) {
  const h = Buffer.alloc(100);
  h.writeInt32BE(9994, 0);
  h.writeInt32BE(lengthBytes / 2, 24);
  h.writeInt32LE(1000, 28);
  h.writeInt32LE(shapeType, 32);
  box.forEach((v, i) => h.writeDoubleLE(v, 36 + i * 8));
  return h;
}

/** A shapefile triple from record contents (each starting with its shape type). */
function shapefile(shapeType, contents, box) {
  const records = contents.map((c, i) => {
    const head = Buffer.alloc(8);
    head.writeInt32BE(i + 1, 0);
    head.writeInt32BE(c.length / 2, 4);
    return Buffer.concat([head, c]);
  });
  const shpLen = 100 + records.reduce((s, r) => s + r.length, 0);
  const shp = Buffer.concat([shpHeader(shpLen, shapeType, box), ...records]);
  const index = [];
  let offset = 100;
  for (const r of records) {
    const e = Buffer.alloc(8);
    e.writeInt32BE(offset / 2, 0);
    e.writeInt32BE((r.length - 8) / 2, 4);
    index.push(e);
    offset += r.length;
  }
  const shx = Buffer.concat([shpHeader(100 + 8 * records.length, shapeType, box), ...index]);
  return { shp, shx };
}

function pointContent(x, y) {
  const b = Buffer.alloc(20);
  b.writeInt32LE(1, 0);
  b.writeDoubleLE(x, 4);
  b.writeDoubleLE(y, 12);
  return b;
}

function polylineContent(parts) {
  const points = parts.flat();
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const b = Buffer.alloc(44 + 4 * parts.length + 16 * points.length);
  b.writeInt32LE(3, 0);
  [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)].forEach((v, i) => b.writeDoubleLE(v, 4 + i * 8));
  b.writeInt32LE(parts.length, 36);
  b.writeInt32LE(points.length, 40);
  let at = 44;
  let start = 0;
  for (const p of parts) {
    b.writeInt32LE(start, at);
    at += 4;
    start += p.length;
  }
  for (const [x, y] of points) {
    b.writeDoubleLE(x, at);
    b.writeDoubleLE(y, at + 8);
    at += 16;
  }
  return b;
}

/** dBASE III table: fields [{name, type: 'C'|'N', len, dec}], rows of strings. */
function dbf(fields, rows) {
  const recLen = 1 + fields.reduce((s, f) => s + f.len, 0);
  const headLen = 32 + 32 * fields.length + 1;
  const h = Buffer.alloc(32);
  h.writeUInt8(3, 0);
  h.writeUInt8(124, 1);
  h.writeUInt8(1, 2);
  h.writeUInt8(1, 3);
  h.writeUInt32LE(rows.length, 4);
  h.writeUInt16LE(headLen, 8);
  h.writeUInt16LE(recLen, 10);
  h.writeUInt8(0x57, 29); // language driver: ANSI
  const descs = fields.map((f) => {
    const d = Buffer.alloc(32);
    d.write(f.name, 0, 10, 'latin1');
    d.write(f.type, 11, 1, 'latin1');
    d.writeUInt8(f.len, 16);
    d.writeUInt8(f.dec ?? 0, 17);
    return d;
  });
  const recs = rows.map((row) =>
    Buffer.concat([
      Buffer.from(' '),
      ...fields.map((f, i) => {
        const v = String(row[i]);
        return Buffer.from(f.type === 'N' ? v.padStart(f.len).slice(0, f.len) : v.padEnd(f.len).slice(0, f.len), 'latin1');
      }),
    ]),
  );
  return Buffer.concat([h, ...descs, Buffer.from([0x0d]), ...recs, Buffer.from([0x1a])]);
}

function shpZip() {
  const pts = [
    [2.35, 48.85],
    [4.83, 45.76],
    [-0.57, 44.84],
  ];
  const points = shapefile(
    1,
    pts.map(([x, y]) => pointContent(x, y)),
    [-0.57, 44.84, 4.83, 48.85, 0, 0, 0, 0],
  );
  const lines = [
    [
      [0, 0],
      [1, 1],
      [2, 0],
    ],
    [
      [5, 5],
      [6, 6],
    ],
  ];
  const polylines = shapefile(
    3,
    [
      polylineContent([lines[0]]),
      polylineContent([
        lines[1],
        [
          [7, 7],
          [8, 9],
        ],
      ]),
    ],
    [0, 0, 8, 9, 0, 0, 0, 0],
  );
  const fields = [
    { name: 'NAME', type: 'C', len: 20 },
    { name: 'POP', type: 'N', len: 10 },
    { name: 'RATIO', type: 'N', len: 8, dec: 3 },
  ];
  return zipOf({
    'places.shp': points.shp,
    'places.shx': points.shx,
    'places.dbf': dbf(fields, [
      ['Paris', 2102650, 1.5],
      ['Lyon', 522250, 0.25],
      ['Bordeaux', 257000, 0],
    ]),
    'places.prj': PRJ_4326,
    'places.cpg': 'UTF-8',
    'roads/roads.shp': polylines.shp,
    'roads/roads.shx': polylines.shx,
    'roads/roads.dbf': dbf(
      [
        { name: 'ID', type: 'N', len: 5 },
        { name: 'KIND', type: 'C', len: 12 },
      ],
      [
        [1, 'primary'],
        [2, 'multi'],
      ],
    ),
    'roads/roads.prj': PRJ_4326,
  });
}

export function gisSeeds() {
  return [
    { name: 'gen_features.geojson', bytes: Buffer.from(JSON.stringify(FEATURES, null, 1)) },
    { name: 'gen_places.kml', bytes: Buffer.from(KML) },
    { name: 'gen_track.gpx', bytes: Buffer.from(GPX) },
    { name: 'gen_places.gml', bytes: Buffer.from(GML) },
    { name: 'gen_places.kmz', bytes: zipOf({ 'doc.kml': KML }), documentType: 'Kmz' },
    { name: 'gen_features.fgb', bytes: Buffer.from(fgbGeojson.serialize(FEATURES)) },
    { name: 'gen_shapes.zip', bytes: shpZip(), documentType: 'ShpZip' },
  ];
}
