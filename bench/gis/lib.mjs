// Shared by the GIS bench scripts: the synthetic large layer and the corpus file → format map.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes a zipped shapefile of `n` polygons (EPSG:3857, fields id/name/area/zone) with native
 * ogr2ogr: the shapefile in `dir` (created), the zip `big_parcels.zip` next to it. Returns the zip.
 */
export function makeBig(n, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const seq = path.join(dir, 'big.geojsonl');
  const out = fs.openSync(seq, 'w');
  const side = Math.ceil(Math.sqrt(n));
  let buf = '';
  for (let i = 0; i < n; i++) {
    const x = -1e6 + (i % side) * 100;
    const y = 5e6 + Math.floor(i / side) * 100;
    const ring = [
      [x, y],
      [x + 80, y],
      [x + 80, y + 60],
      [x + 40, y + 90],
      [x, y + 60],
      [x, y],
    ];
    buf +=
      JSON.stringify({
        type: 'Feature',
        properties: { id: i, name: `parcel ${i}`, area: 6000.5 + (i % 97), zone: `Z${i % 13}` },
        geometry: { type: 'Polygon', coordinates: [ring] },
      }) + '\n';
    if (buf.length > 1 << 20) {
      fs.writeSync(out, buf);
      buf = '';
    }
  }
  fs.writeSync(out, buf);
  fs.closeSync(out);
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', '-s_srs', 'EPSG:3857', '-a_srs', 'EPSG:3857', path.join(dir, 'big_parcels.shp'), seq], { stdio: 'ignore' });
  fs.rmSync(seq);
  const zip = path.join(path.dirname(dir), 'big_parcels.zip');
  fs.rmSync(zip, { force: true });
  execFileSync('zip', ['-q', '-j', zip, ...fs.readdirSync(dir).map((f) => path.join(dir, f))]);
  return zip;
}

/** The format each corpus gis file (bad_* included) and any extra .zip is parsed as; null to skip. */
export function corpusFormat(file) {
  if (/^(shp_|mixed_|big_|bad_shp)/.test(file)) return 'shapefile';
  if (file.startsWith('mapinfo_')) return 'mapinfo';
  if (file.startsWith('fgdb_')) return 'filegdb';
  if (file.startsWith('gpkg_')) return 'geopackage';
  if (file.startsWith('geojson_')) return 'geojson';
  if (/^(kml_|bad_kml)/.test(file)) return 'kml';
  if (file.endsWith('.zip')) return 'shapefile';
  return null;
}
