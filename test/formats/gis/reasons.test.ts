// GDAL's messages in reasons and warnings: the upload's own file and member names, never the
// paths of the job's scratch folder GDAL reads from (/dp/gis-in/…), and one full stop.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unrecognisedKml } from '../../../bench/fuzz/generators/messages.mjs';
import { parseFile } from '../../helpers/parse.js';
import { makeZip } from '../../helpers/zip.js';

async function parseBytes(bytes: Buffer, format: string, fileName: string) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-gis-reasons-'));
  try {
    await fs.writeFile(path.join(dir, 'upload'), bytes);
    return await parseFile(path.join(dir, 'upload'), format, {}, fileName);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

describe('GIS failure reasons', () => {
  it('a single file GDAL does not recognise is named as the user named it', async () => {
    const r = await parseBytes(unrecognisedKml(), 'kml', 'my places.kml');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toBe(
      'The file could not be read as kml: GDAL could not open it as a vector dataset: "my places.kml" not recognized as a supported file format.',
    );
  });

  it('a ZIP member GDAL does not recognise is named by its path in the archive', async () => {
    const zip = makeZip([{ name: 'layers/places.kml', data: unrecognisedKml() }]);
    const r = await parseBytes(zip, 'shapefile', 'layers.zip');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toBe(
      'No dataset in the upload could be read (layers/places.kml: GDAL could not open it as a vector dataset: "layers/places.kml" not recognized as a supported file format).',
    );
  });
});
