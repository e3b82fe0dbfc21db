// Hashes of GIS artifacts, to check that a change to the GIS parser leaves results the same.
// Usage: node bench/gis/hash-artifacts.mjs [--root=<checkout with dist/>] [--zip=extra.zip ...] > hashes.json
// For every file of the corpus's gis folder (bad_* included) and every --zip, the whole job runs as
// the worker runs it; printed per file: ok/failure message, a SHA-256 of the artifact, of
// every dataset's features array and of the result parts. Compare two runs with `diff`.
// DOCPARSE_GIS_MAX_INLINE_FEATURES is honoured (set it low to exercise the parts).
// Since the FlatGeobuf route the artifact text differs from GDAL's (spacing, 1 vs 1.0) while the
// values are equal: compare the two routes with bench/gis/compare-fgb.mjs instead.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusFormat as formatOf } from './lib.mjs';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROOT = path.resolve(process.argv.find((a) => a.startsWith('--root='))?.slice(7) ?? HERE);
const CORPUS = corpusDir('gis');
const extra = process.argv.filter((a) => a.startsWith('--zip=')).map((a) => path.resolve(a.slice(6)));

const { parseGis } = await import(path.join(ROOT, 'dist/formats/gis/index.js'));
const { writeArtifact } = await import(path.join(ROOT, 'dist/pipeline/thread.js'));

const sha = (x) => crypto.createHash('sha256').update(x).digest('hex').slice(0, 16);
const inputs = [
  ...fs
    .readdirSync(CORPUS)
    .filter((f) => formatOf(f))
    .sort()
    .map((f) => path.join(CORPUS, f)),
  ...extra,
];
const out = {};
for (const file of inputs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-gis-hash-'));
  try {
    const r = await writeArtifact(
      {
        documentId: 'hash',
        fileName: path.basename(file),
        format: formatOf(path.basename(file)),
        options: {},
        customMetadata: null,
        inputPath: file,
        artifactPath: path.join(dir, 'artifact.json'),
        tempDir: dir,
      },
      async () => parseGis,
    );
    if (!r.ok) {
      out[path.basename(file)] = { ok: false, code: r.code, message: r.message };
      continue;
    }
    const text = fs.readFileSync(path.join(dir, 'artifact.json'));
    const a = JSON.parse(text);
    out[path.basename(file)] = {
      ok: true,
      artifact: sha(text),
      bytes: text.length,
      datasets: a.content.datasets.map((d) => ({
        name: d.name,
        n: d.features.length,
        features: sha(JSON.stringify(d.features)),
        extent: d.extent,
        warnings: d.warnings.length,
      })),
      parts: (r.parts ?? []).map((p) => ({ name: p.name, sha: sha(fs.readFileSync(p.path)) })),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
