// Step 1 of the GIS parser: the upload placed in the job's scratch folder where GDAL can open
// it. A ZIP is extracted through the archive guard (zip bombs, path traversal), ZIPs inside it
// too; any other file is linked under a name GDAL recognises. File geodatabase folders are
// named so GDAL finds them.
import { copyFile, link, mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { printable } from '../kit/reasons.js';
import { ExtractionError, type ParseInput } from '../kit/types.js';
import { discoverDatasets, type DatasetSource } from './discover.js';
import { extractZip, type ExtractReport } from './zip.js';
import { ArchiveBudget, activeArchiveBudget } from '../archive-guard.js';
import { isZipHead, readFileHead } from '../kit/file-head.js';
/** File extension GDAL needs to recognise a single uploaded file of each format. */
const SINGLE_FILE_EXT: Record<string, string[]> = {
  geojson: ['.geojson', '.json'],
  kml: ['.kml'],
  gml: ['.gml', '.xml'],
  gpx: ['.gpx'],
  flatgeobuf: ['.fgb'],
  geopackage: ['.gpkg'],
  mapinfo: ['.mif', '.tab'],
  shapefile: ['.shp'],
};

function safeBaseName(fileName: string | null, format: string): string {
  let base = path
    .basename((fileName ?? '').replace(/\\/g, '/'))
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/^\.+/, '');
  if (!base) base = 'upload';
  if (base.length > 120) base = base.slice(-120);
  const exts = SINGLE_FILE_EXT[format];
  if (exts && !exts.some((e) => base.toLowerCase().endsWith(e))) base += exts[0];
  return base;
}

export interface Prepared {
  /** Folder (inside tempDir) holding the datasets. */
  root: string;
  archive: ExtractReport | null;
  /** A single (not zipped) upload: its name in `root`, which GDAL's messages quote. */
  stored: string | null;
}

/**
 * ZIPs inside the ZIP (e.g. one zipped shapefile per layer) are extracted in place, into a
 * folder named like the archive, down to the archive limits' depth; they draw from the same
 * budget as the upload. Deeper ones are left as they are (and named in the warnings).
 */
async function expandNestedZips(root: string, archive: ExtractReport, budget: ArchiveBudget): Promise<void> {
  for (let depth = 1; depth <= budget.limits.maxDepth; depth++) {
    const { nested } = await discoverDatasets(root);
    let expanded = 0;
    for (const rel of nested) {
      if (!/\.(zip|kmz)$/i.test(rel)) continue;
      const abs = path.join(root, rel);
      if (!isZipHead(await readFileHead(abs, 4))) continue;
      const held = `${abs}.nested-archive`;
      await rename(abs, held);
      await mkdir(abs);
      const r = await extractZip(held, abs, budget, depth);
      await rm(held, { force: true });
      archive.entries += r.entries;
      archive.files += r.files - 1;
      archive.uncompressedBytes += r.uncompressedBytes;
      archive.skipped.push(...r.skipped.map((x) => `${rel}/${x}`));
      expanded++;
    }
    if (!expanded) return;
  }
}

/** GDAL's OpenFileGDB driver needs a folder named *.gdb: give one to geodatabases zipped without it. */
export async function nameGeodatabaseFolders(root: string, sources: DatasetSource[], fileName: string | null): Promise<void> {
  for (const src of sources) {
    if (src.format !== 'filegdb' || /\.gdb$/i.test(src.relPath)) continue;
    if (src.relPath === '.') {
      const stem =
        path
          .basename(fileName ?? 'upload')
          .replace(/(\.gdb)?\.zip$/i, '')
          .replace(/[^\p{L}\p{N}._-]+/gu, '_') || 'upload';
      const target = `${stem}.gdb`;
      const entries = await readdir(root);
      await mkdir(path.join(root, target));
      for (const e of entries) await rename(path.join(root, e), path.join(root, target, e));
      src.relPath = target;
    } else {
      const target = `${src.relPath}.gdb`;
      await rename(path.join(root, src.relPath), path.join(root, target));
      src.relPath = target;
    }
  }
}

export async function prepareInput(input: ParseInput, warnings: string[]): Promise<Prepared> {
  const head = await readFileHead(input.filePath, 8);
  const root = path.join(input.tempDir, 'gis-in');
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  if (isZipHead(head)) {
    const budget = activeArchiveBudget();
    const archive = await extractZip(input.filePath, root, budget);
    await expandNestedZips(root, archive, budget);
    for (const s of archive.skipped) warnings.push(`ZIP member skipped: ${printable(s)} (symbolic link).`);
    return { root, archive, stored: null };
  }
  if (['shapefile', 'filegdb', 'kmz'].includes(input.format) && !/\.shp$/i.test(input.fileName ?? '')) {
    throw new ExtractionError(
      `A ${input.format === 'shapefile' ? 'zipped shapefile (ShpZip)' : input.format === 'filegdb' ? 'file geodatabase (FileGdb)' : 'KMZ'} upload must be a ZIP archive, and this file is not one.`,
    );
  }
  if (head.length === 0) throw new ExtractionError('The upload is empty.');
  const stored = safeBaseName(input.fileName, input.format);
  const target = path.join(root, stored);
  try {
    await link(input.filePath, target);
  } catch {
    await copyFile(input.filePath, target);
  }
  return { root, archive: null, stored };
}
