// Parses one PDF with the built parser (dist/) and writes the artifact JSON to stdout or a file.
// usage: node bench/pdf/parse-one.mjs <file.pdf> [mode] [out.json] [--chunks]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';

const [file, mode = 'SingleColumn', outFile] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const chunkHints = process.argv.includes('--chunks');
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pdf-one-'));
const artifactPath = outFile ?? path.join(dir, 'a.json');
const t0 = performance.now();
const r = await writeArtifact(
  {
    documentId: 'x',
    fileName: path.basename(file),
    format: 'pdf',
    options: { pdfMode: mode, chunkHints },
    customMetadata: null,
    inputPath: file,
    artifactPath,
    tempDir: dir,
  },
  async () => parsePdf,
);
const ms = performance.now() - t0;
if (!outFile) process.stdout.write(await fs.readFile(artifactPath, 'utf8'));
console.error(JSON.stringify({ ...r, ms: Math.round(ms) }));
await fs.rm(dir, { recursive: true, force: true });
